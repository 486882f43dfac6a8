package ratelimit

import (
	"testing"
	"time"
)

// A bare number is seconds here as at the driver's start (cli.ParseDuration):
// max_wait=3600 once failed the first decision of a run the start accepted.
func TestParseSettingsSeconds(t *testing.T) {
	s, err := ParseSettings(map[string]string{"max_wait": "3600", "rate_limit_backoff": "1.5"})
	if err != nil || s.MaxWait != time.Hour || s.Backoff != 1500*time.Millisecond {
		t.Fatalf("got %+v, %v", s, err)
	}
	for _, bad := range []string{"soon", "-1s", "NaN", "5x"} {
		if _, err := ParseSettings(map[string]string{"max_wait": bad}); err == nil {
			t.Errorf("max_wait=%q accepted", bad)
		}
	}
}
