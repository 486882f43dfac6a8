package cli

import (
	"fmt"
	"strconv"
	"time"
)

// Duration is a flag value taking Go syntax ("90s", "5m") or bare seconds ("90").
type Duration time.Duration

// ParseDuration parses Go duration syntax or a bare number of seconds.
func ParseDuration(s string) (time.Duration, error) {
	if secs, err := strconv.ParseFloat(s, 64); err == nil {
		if secs < 0 {
			return 0, fmt.Errorf("invalid duration %q: negative", s)
		}
		return time.Duration(secs * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("invalid duration %q (want Go syntax like 90s or 5m, or seconds)", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("invalid duration %q: negative", s)
	}
	return d, nil
}

// UnmarshalFlag implements flags.Unmarshaler.
func (d *Duration) UnmarshalFlag(s string) error {
	v, err := ParseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}

// MarshalFlag implements flags.Marshaler (help shows defaults this way).
func (d Duration) MarshalFlag() (string, error) {
	return time.Duration(d).String(), nil
}

// D returns the value as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }
