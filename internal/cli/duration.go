package cli

import (
	"time"

	"github.com/loopkit/loopkit/internal/runconfig"
)

// Duration is a flag value taking Go syntax ("90s", "5m") or bare seconds ("90").
type Duration time.Duration

// MaxDuration is the longest duration a flag takes (runconfig's).
const MaxDuration = runconfig.MaxDuration

// ParseDuration is runconfig.ParseDuration: one parser for every duration.
func ParseDuration(s string) (time.Duration, error) { return runconfig.ParseDuration(s) }

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
