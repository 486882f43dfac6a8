package cli

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Duration is a flag value taking Go syntax ("90s", "5m") or bare seconds ("90").
type Duration time.Duration

// MaxDuration is the longest duration a flag takes: longer is a typo, and
// far longer overflows into "no limit".
const MaxDuration = 366 * 24 * time.Hour

// ParseDuration parses Go duration syntax or a bare number of seconds: 0,
// or from 1ms to MaxDuration. NaN, infinities and values that would round
// to 0 are errors, never a silent "no timeout".
func ParseDuration(s string) (time.Duration, error) {
	var d time.Duration
	if secs, err := strconv.ParseFloat(s, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		if math.IsNaN(secs) || math.IsInf(secs, 0) || secs > MaxDuration.Seconds() {
			return 0, fmt.Errorf("invalid duration %q: want 0 (none) or 1ms to %s", s, fmtMax())
		}
		d = time.Duration(secs * float64(time.Second))
		if secs > 0 && d < time.Millisecond {
			return 0, fmt.Errorf("invalid duration %q: want 0 (none) or 1ms to %s", s, fmtMax())
		}
	} else if d, err = time.ParseDuration(s); err != nil {
		return 0, fmt.Errorf("invalid duration %q (want Go syntax like 90s or 5m, or seconds)", s)
	}
	switch {
	case d < 0 || strings.HasPrefix(strings.TrimSpace(s), "-"):
		return 0, fmt.Errorf("invalid duration %q: negative", s)
	case d > MaxDuration, d > 0 && d < time.Millisecond:
		return 0, fmt.Errorf("invalid duration %q: want 0 (none) or 1ms to %s", s, fmtMax())
	}
	return d, nil
}

func fmtMax() string { return fmt.Sprintf("%dd", int(MaxDuration.Hours()/24)) }

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
