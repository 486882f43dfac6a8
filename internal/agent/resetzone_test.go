package agent

import (
	"testing"
	"time"
)

// TestResetTimeLocalZone: Codex prints its reset in the machine's zone with
// no zone named ("Try again at 3:45 PM.", another day "Jan 2nd, 2027 3:45
// PM"): it is read in that zone, not as UTC, which in New York made a
// 1h45m wait one of 20h45m and in Kolkata one of 7h15m.
func TestResetTimeLocalZone(t *testing.T) {
	ny := time.FixedZone("EST", -5*3600)
	kolkata := time.FixedZone("IST", 5*3600+1800)
	chatham := time.FixedZone("+1245", 12*3600+45*60)
	for _, tc := range []struct {
		msg       string
		now, want time.Time
	}{
		{"You've hit your usage limit. Try again at 3:45 PM.",
			time.Date(2026, 7, 16, 14, 0, 0, 0, ny), time.Date(2026, 7, 16, 15, 45, 0, 0, ny)},
		{"You've hit your usage limit. Try again at 3:45 PM.",
			time.Date(2026, 7, 16, 14, 0, 0, 0, kolkata), time.Date(2026, 7, 16, 15, 45, 0, 0, kolkata)},
		{"You've hit your usage limit. Try again at 12:05 AM.", // past midnight
			time.Date(2026, 7, 16, 23, 50, 0, 0, chatham), time.Date(2026, 7, 17, 0, 5, 0, 0, chatham)},
		{"You've hit your usage limit. Visit https://chatgpt.com/codex/settings/usage to purchase more credits or try again at Jul 18th, 2026 9:05 AM.",
			time.Date(2026, 7, 16, 14, 0, 0, 0, kolkata), time.Date(2026, 7, 18, 9, 5, 0, 0, kolkata)},
		// a zone named wins over the local one
		{"You've hit your session limit · resets 9:50pm (UTC)",
			time.Date(2026, 7, 16, 14, 0, 0, 0, kolkata), time.Date(2026, 7, 16, 21, 50, 0, 0, time.UTC)},
	} {
		if got := resetTime(tc.msg, tc.now); got != tc.want.UnixMilli() {
			t.Errorf("%q at %s: resets %s, want %s", tc.msg, tc.now, time.UnixMilli(got).In(tc.now.Location()), tc.want)
		}
	}
}
