package ratelimit

import (
	"testing"
	"time"

	"github.com/loopkit/loopkit/internal/runconfig"
)

// A bare number is seconds here as at the driver's start (one parser,
// runconfig's): max_wait=3600 once failed the first decision of a run the
// start accepted.
func TestSettingsOfSeconds(t *testing.T) {
	set := runconfig.MustFromMap(map[string]string{"max_wait": "3600", "rate_limit_backoff": "1.5"})
	if s := SettingsOf(&set); s.MaxWait != time.Hour || s.Backoff != 1500*time.Millisecond {
		t.Fatalf("got %+v", s)
	}
	for _, bad := range []string{"soon", "-1s", "NaN", "5x"} {
		if _, err := runconfig.FromMap(map[string]string{"max_wait": bad}); err == nil {
			t.Errorf("max_wait=%q accepted", bad)
		}
	}
}
