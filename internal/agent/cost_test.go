package agent

import "testing"

func TestReportsCost(t *testing.T) {
	for _, tt := range []struct {
		binary        string
		reports, know bool
	}{
		{"claude", true, true},
		{"/usr/local/bin/opencode", true, true},
		{"/opt/bin/codex", false, true},
		{"gemini", false, true},
		{"cursor-agent", false, true},
		{"amp", false, true},
		{"copilot", false, true},
		{"sh", false, false},
		{"./agent.sh", false, false},
		{"", false, false},
	} {
		r, k := ReportsCost(tt.binary)
		if r != tt.reports || k != tt.know {
			t.Errorf("ReportsCost(%q) = %v, %v; want %v, %v", tt.binary, r, k, tt.reports, tt.know)
		}
	}
}
