package drivesettings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	dir := t.TempDir()
	prompt := filepath.Join(dir, "TASK.md")
	os.WriteFile(prompt, []byte("x"), 0o644)
	script := filepath.Join(dir, "agent.sh")
	os.WriteFile(script, []byte("#!/bin/sh\n"), 0o755)
	plain := filepath.Join(dir, "plain.sh")
	os.WriteFile(plain, []byte("#!/bin/sh\n"), 0o644)
	ok := map[string]string{"prompt": prompt, "dir": dir, "max_iterations": "3", "timeout": "30m", "max_cost": "1.5"}
	tests := []struct {
		name     string
		settings map[string]string
		agent    []string
		want     string // substring of the error, "" for none
	}{
		{"fine", ok, []string{"sh", "-c", "true"}, ""},
		{"relative script", ok, []string{"./agent.sh"}, ""},
		{"bad duration", map[string]string{"timeout": "soon"}, []string{"sh"}, `--timeout must be a duration like 90s, 5m or 3600 (seconds), got "soon"`},
		{"bare seconds", map[string]string{"timeout": "600"}, []string{"sh"}, ""},
		{"zero iterations", map[string]string{"max_iterations": "0"}, []string{"sh"}, "--max-iterations must be a positive whole number"},
		{"bad number", map[string]string{"retries": "two"}, []string{"sh"}, `--retries must be a whole number, got "two"`},
		{"bad cost", map[string]string{"max_cost": "NaN"}, []string{"sh"}, "--max-cost must be a number of dollars"},
		{"bad mode", map[string]string{"completion_mode": "loose"}, []string{"sh"}, "--completion-mode must be trailing or exact"},
		{"bad strategy", map[string]string{"merge_strategy": "rebase"}, []string{"sh"}, "--merge-strategy must be none or merge or squash"},
		{"bad rate-limit policy", map[string]string{"rate_limit_policy": "cli"}, []string{"sh"}, "--rate-limit-policy must be loop or agent"},
		{"no prompt file", map[string]string{"prompt": dir + "/nope.md"}, []string{"sh"}, "nope.md: no such file"},
		{"typo'd agent", ok, []string{"claud"}, "agent command claud: not found on PATH"},
		{"missing script", ok, []string{"./gone.sh"}, "agent command ./gone.sh: no such file"},
		{"not executable", ok, []string{plain}, "not executable"},
		{"no agent", ok, nil, "no agent command"},
		{"unknown keys pass", map[string]string{"whatever": "x"}, []string{"sh"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Validate(tt.settings, tt.agent)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("unexpected error: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

func TestAgentRoundTrip(t *testing.T) {
	argv := []string{"claude", "-p", "it's \"quoted\"\nand\tmore", "$(no)"}
	got, err := DecodeAgent(EncodeAgent(argv))
	if err != nil || strings.Join(got, "|") != strings.Join(argv, "|") {
		t.Fatalf("got %q, %v", got, err)
	}
}
