package agent

import (
	"slices"
	"testing"
)

// TestWithModel: each agent CLI gets its own model flag where it takes it;
// an argv naming a model, or an agent with no known flag, is left alone.
func TestWithModel(t *testing.T) {
	for _, tc := range []struct {
		argv, want []string
		ok         bool
	}{
		{[]string{"claude", "-p", "--verbose"}, []string{"claude", "--model", "M", "-p", "--verbose"}, true},
		{[]string{"/usr/bin/codex", "exec", "--json", "-"}, []string{"/usr/bin/codex", "exec", "-m", "M", "--json", "-"}, true},
		{[]string{"gemini", "-p", "{prompt}"}, []string{"gemini", "-m", "M", "-p", "{prompt}"}, true},
		{[]string{"opencode", "run", "--format", "json"}, []string{"opencode", "run", "-m", "M", "--format", "json"}, true},
		{[]string{"claude", "--model", "opus", "-p"}, []string{"claude", "--model", "opus", "-p"}, true},
		{[]string{"sh", "-c", "claude -p"}, []string{"sh", "-c", "claude -p"}, false},
		{[]string{"codex", "login"}, []string{"codex", "login"}, false},
	} {
		got, ok := WithModel(tc.argv, "M")
		if !slices.Equal(got, tc.want) || ok != tc.ok {
			t.Errorf("WithModel(%q) = %q, %v; want %q, %v", tc.argv, got, ok, tc.want, tc.ok)
		}
	}
}
