package loopstep

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Gemini CLI's documented exit codes are named in the step's error, with
// their kind, even when it printed nothing to detect its format by.
func TestGeminiExitCodes(t *testing.T) {
	for _, tc := range []struct {
		code       string
		kind, text string
	}{
		{"41", "authentication", "FatalAuthenticationError"},
		{"42", "invalid_request", "FatalInputError"},
		{"44", "api_error", "FatalSandboxError"},
		{"52", "invalid_request", "FatalConfigError"},
		// The CLI's own turn limit (model.maxSessionTurns), as Claude's
		// error_max_turns; 54: packages/core/src/utils/errors.ts and
		// docs/cli/headless.md of google-gemini/gemini-cli.
		{"53", "max_turns", "FatalTurnLimitedError"},
		{"54", "", "FatalToolExecutionError"},
		{"130", "", "FatalCancellationError"},
	} {
		c := newCase(t)
		bin := filepath.Join(c.dir, "bin")
		os.Mkdir(bin, 0o755)
		c.write("bin/gemini", "#!/bin/sh\nexit "+tc.code+"\n")
		chmodX(t, filepath.Join(bin, "gemini"))
		t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		rec, _, _ := c.run("", "--prompt", c.dir+"/prompt.md", "--", "gemini", "-p", "{prompt}")
		if rec.Error == nil || !strings.Contains(*rec.Error, "gemini exited "+tc.code) || !strings.Contains(*rec.Error, tc.text) {
			t.Errorf("exit %s: error %v", tc.code, str(rec.Error))
		}
		if got := str(rec.ErrorKind); (tc.kind == "" && rec.ErrorKind != nil) || (tc.kind != "" && got != tc.kind) {
			t.Errorf("exit %s: kind %s, want %q", tc.code, got, tc.kind)
		}
	}
}

// Its maxSessionTurns reached, Gemini CLI's stream-json says so in an error
// event and exits 53 (packages/cli/src/nonInteractiveCli.ts of
// google-gemini/gemini-cli): the CLI's turn limit, not an API error.
func TestGeminiMaxSessionTurns(t *testing.T) {
	c := newCase(t)
	bin := filepath.Join(c.dir, "bin")
	os.Mkdir(bin, 0o755)
	c.write("bin/gemini", "#!/bin/sh\ncat >/dev/null\nprintf '%s\\n' "+
		`'{"type":"init","timestamp":"2026-11-26T03:28:08.000Z","session_id":"s1","model":"gemini-2.5-flash"}' `+
		`'{"type":"error","timestamp":"2026-11-26T03:28:09.000Z","severity":"error","message":"Maximum session turns exceeded"}'`+
		"\nexit 53\n")
	chmodX(t, filepath.Join(bin, "gemini"))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	rec, _, _ := c.run("", "--prompt", c.dir+"/prompt.md", "--", "gemini", "-p", "{prompt}", "--output-format", "stream-json")
	if got := str(rec.ErrorKind); got != "max_turns" || rec.Error == nil || !strings.Contains(*rec.Error, "Maximum session turns exceeded") {
		t.Errorf("kind %s error %s", got, str(rec.Error))
	}
}
