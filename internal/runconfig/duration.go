package runconfig

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Duration is a duration setting: stored in run.json in Go syntax
// ("30m0s"), read from Go syntax or a bare number of seconds.
type Duration time.Duration

// D is the value as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// String is Go syntax without zero units: 30m, 1h, 1m30s, 0.
func (d Duration) String() string {
	if d == 0 {
		return "0"
	}
	s := time.Duration(d).String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}

// MarshalJSON writes String, which a person reads at a glance.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(d.String())
}

// UnmarshalJSON reads a string (Go syntax or seconds) or a number of
// seconds, through ParseDuration like every other duration.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		s = string(b)
	}
	v, err := ParseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}

// UnmarshalFlag reads a flag's or a config file's text through
// ParseDuration (a key of Tools is read by the same parser as its flag).
func (d *Duration) UnmarshalFlag(s string) error {
	v, err := ParseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}

// MaxDuration is the longest duration a setting takes: longer is a typo,
// and far longer overflows into "no limit".
const MaxDuration = 366 * 24 * time.Hour

// ParseDuration is the one parser of durations, for every flag, variable,
// config key and stored setting: Go syntax or a bare number of seconds; 0,
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

// fmtMax is the bound as the parser reads it, then in days.
func fmtMax() string {
	return fmt.Sprintf("%dh (%d days)", int(MaxDuration.Hours()), int(MaxDuration.Hours()/24))
}
