package runcheck

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopkit/loopkit/internal/runconfig"
)

// The validation's first command is found as sh would find it, before any
// agent is paid for. (Issue 24: 'gotest ./...' ran four paid iterations.)
func TestValidationRunnable(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "check.sh"), []byte("#!/bin/sh\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "plain.sh"), []byte("#!/bin/sh\n"), 0o644)
	for _, tc := range []struct{ cmd, want string }{
		{"go test ./...", ""},
		{"gotest ./...", "--validate: gotest: not found on PATH"},
		{"CGO_ENABLED=0 GOFLAGS=-x gotest ./...", "gotest: not found on PATH"},
		{"cd sub && gotest", ""}, // cd is a builtin: the first command is fine
		{"gotest && go vet", "gotest: not found"},
		{"(gotest; true) | cat", "gotest: not found"},
		{"{ gotest; }", "gotest: not found"},
		{"if gotest; then :; fi", "gotest: not found"},
		{"! gotest", "gotest: not found"},
		{"'gotest' -v", "gotest: not found"},
		{"X=1; gotest", "gotest: not found"},
		{"t() { go test; }; t", ""},
		{"$GO test", ""}, // unknown until it runs
		{"PATH=/opt/go/bin:$PATH gotest", ""},
		{"for f in a; do gotest; done", ""},
		{"true", ""},
		// a command run by another: the one that must exist is the inner
		{"env gotest", "gotest: not found"},
		{"env CGO_ENABLED=0 GOFLAGS=-x gotest ./...", "gotest: not found"},
		{"exec gotest", "gotest: not found"},
		{"command gotest", "gotest: not found"},
		{"nohup gotest", "gotest: not found"},
		{"nice -n 5 gotest", "gotest: not found"},
		{"timeout 300 gotest ./...", "gotest: not found"},
		{"timeout 5m nice env X=1 ./gone.sh", "./gone.sh: no such file"},
		{"env CGO_ENABLED=0 go test ./...", ""},
		{"timeout 300 go test", ""},
		{"command -v go", ""},
		{"env -u X gotest", ""}, // an option it does not follow
		{"timeout -k 5 300 gotest", ""},
		{"env", ""},
		{"exec", ""},
		{"env $CMD", ""},
		{"test -f go.mod", ""},
		{"[ -f go.mod ]", ""},
		{"./check.sh", ""},
		{"./gone.sh", "--validate: ./gone.sh: no such file"},
		{"./plain.sh", "--validate: ./plain.sh: not executable (chmod +x it"},
		{"/no/such/bin/test", "no such file"},
		{"sh ./plain.sh", ""},
		// sh -n judges the syntax, before any agent is paid for: a string
		// sh rejects fails every iteration with exit 2
		{"make test (", "--validate: sh cannot read it: "},
		{"go test ./... |", "sh cannot read it: "},
		{"if then", "sh cannot read it: "},
		{`go test "./...`, "sh cannot read it: "},
		{"go test ./... # a comment", ""},
		// nothing to run passes at once: the first iteration "completes"
		{"", "runs no command"},
		{"  ", "runs no command"},
		{"# go test ./...", "runs no command"},
	} {
		err := ValidationRunnable(tc.cmd, dir)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: unexpected error: %v", tc.cmd, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: error %v, want %q", tc.cmd, err, tc.want)
		case err != nil && strings.Contains(err.Error(), "/sh:"): // as docs/driver.md shows it
			t.Errorf("%q: error %v names sh by its path", tc.cmd, err)
		}
	}
	ok := runconfig.Settings{Dir: dir, Validate: "gotest ./...", Agent: []string{"sh"}}
	if err := Check(&ok); err == nil || !strings.Contains(err.Error(), "gotest") {
		t.Errorf("Check does not check the validation: %v", err)
	}
}

// The final verification, the reviewer and the hooks run through sh -c as
// the validation does: a typo there is refused before any agent is paid
// for (it made every iteration fail after its paid step, and the run
// stuck; a hook's failed at the run's end, a warning the person missed).
func TestCheckFinalVerifyAndReviewer(t *testing.T) {
	checkAll(t, t.TempDir(), []checkCase{
		{runconfig.Settings{FinalVerify: []string{"go vet ./...", "gotest ./..."}}, "--final-verify: gotest: not found on PATH"},
		{runconfig.Settings{FinalVerify: []string{"make e2e |"}}, "--final-verify: sh cannot read it: "},
		{runconfig.Settings{Reviewer: "reviewr --strict"}, "--reviewer: reviewr: not found on PATH"},
		{runconfig.Settings{Reviewer: "sh review.sh", FinalVerify: []string{"go vet ./..."}}, ""},
		// a hook too: its failure is news of the run the person never gets
		{runconfig.Settings{OnEvent: []string{"exit 9", "notfy-send done"}}, "--on-event: notfy-send: not found on PATH"},
		{runconfig.Settings{OnEvent: []string{"curl -d @- |"}}, "--on-event: sh cannot read it: "},
		{runconfig.Settings{OnEvent: []string{"cat > hook.json", "exit 9"}}, ""},
	})
}

type checkCase struct {
	s    runconfig.Settings
	want string // the error's start; "" for none
}

// checkAll runs Check on each case's settings in dir, the validation true
// and the agent sh unless the case gives them.
func checkAll(t *testing.T, dir string, cases []checkCase) {
	t.Helper()
	for _, tc := range cases {
		s := tc.s
		s.Dir = dir
		if s.Validate == "" {
			s.Validate = "true"
		}
		if s.Agent == nil {
			s.Agent = []string{"sh"}
		}
		err := Check(&s)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%+v: unexpected error: %v", tc.s, err)
		case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)):
			t.Errorf("%+v: error %v, want %q", tc.s, err, tc.want)
		}
	}
}

// A script saved with CRLF line ends passed the check (there, executable)
// and every start of it said "not found", after the run was created and,
// for the validation, after a paid step.
func TestCheckCRLFScripts(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "crlf.sh"), []byte("#!/bin/sh\r\nexit 0\r\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "ok.sh"), []byte("#!/bin/sh\nexit 0\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "bom.sh"), []byte("\ufeff#!/bin/bash\n"), 0o755)
	bin := t.TempDir()
	os.WriteFile(filepath.Join(bin, "crlf-tool"), []byte("#!/bin/sh\r\n"), 0o755)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	const why = `its #! line ends in a carriage return (CRLF line ends, as Windows editors save them), so the system looks for "/bin/sh\r"`
	checkAll(t, dir, []checkCase{
		{runconfig.Settings{Validate: "./crlf.sh"}, "--validate: ./crlf.sh: " + why},
		{runconfig.Settings{Validate: "timeout 60 ./crlf.sh && true"}, "--validate: ./crlf.sh: " + why},
		{runconfig.Settings{Validate: "crlf-tool"}, "--validate: crlf-tool: " + why},
		{runconfig.Settings{Validate: "./ok.sh", Reviewer: "./crlf.sh"}, "--reviewer: ./crlf.sh: " + why},
		{runconfig.Settings{Validate: "./ok.sh", OnEvent: []string{"./crlf.sh"}}, "--on-event: ./crlf.sh: " + why},
		{runconfig.Settings{Validate: "./ok.sh", Agent: []string{"./crlf.sh"}}, "agent command ./crlf.sh: " + why},
		{runconfig.Settings{Validate: "./ok.sh", Agent: []string{"crlf-tool"}}, "agent command crlf-tool: " + why},
		{runconfig.Settings{Validate: "./ok.sh", Agent: []string{"./ok.sh"}}, ""},
		{runconfig.Settings{Validate: "./bom.sh"}, "--validate: ./bom.sh: it starts with a byte-order mark"},
	})
}

// A prompt of blank lines is empty however long it is (only its first
// 4 KiB were looked at, and the file was read again for its encoding).
func TestPromptFile(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, text, want string }{
		{"task.md", "fix the parser\n", ""},
		{"none.md", "", "spec %s is empty: write the agent's task in it"},
		{"blank.md", "\n \r\n\t\n", "spec %s is empty: write the agent's task in it"},
		{"long-blank.md", strings.Repeat("\n", 5000), "spec %s is empty: write the agent's task in it"},
		{"latin1.md", "caf\xe9\n", "spec %s is not UTF-8 text (line 1 has the byte 0xe9)"},
	} {
		path := filepath.Join(dir, tc.name)
		os.WriteFile(path, []byte(tc.text), 0o644)
		err := PromptFile("spec", path)
		want := tc.want
		if want != "" {
			want = fmt.Sprintf(tc.want, path)
		}
		if want == "" && err != nil || want != "" && (err == nil || !strings.HasPrefix(err.Error(), want)) {
			t.Errorf("%s: %v, want %q", tc.name, err, want)
		}
	}
	if err := PromptFile("prompt", filepath.Join(dir, "gone.md")); err != nil {
		t.Errorf("a file that cannot be read is the run's to say: %v", err)
	}
}

// An agent argv word that is not UTF-8 would be stored changed in
// run.json, and every later step run another command.
func TestCheckAgentUTF8(t *testing.T) {
	s := runconfig.Settings{Dir: t.TempDir(), Validate: "true", Agent: []string{"sh", "-c", "echo \xff"}}
	if err := Check(&s); err == nil || err.Error() != `the agent's command: "echo \xff" is not UTF-8 text` {
		t.Errorf("Check: %v", err)
	}
}

// A prompt in another encoding reached the agent with U+FFFD for each byte
// that is not UTF-8, or UTF-16's NUL between its letters.
func TestTextProblem(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"Fix it.\n", ""},
		{"\ufeffFix the café.\r\n", ""},
		{"", ""},
		{"a\nb\nFix the caf\xe9 menu\n", "is not UTF-8 text (line 3 has the byte 0xe9)"},
		{"\x83e\x83X\x83g", "is not UTF-8 text (line 1 has the byte 0x83)"}, // Shift_JIS
		{"\xff\xfeF\x00i\x00x\x00", "is UTF-16 text"},
		{"\xfe\xff\x00F\x00i", "is UTF-16 text"},
		{"F\x00i\x00x\x00", "is UTF-16 text"}, // no byte-order mark
	} {
		if got := TextProblem([]byte(tc.text)); tc.want == "" && got != "" || !strings.HasPrefix(got, tc.want) {
			t.Errorf("%q: %q, want %q", tc.text, got, tc.want)
		}
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "TASK.md")
	os.WriteFile(p, []byte("caf\xe9\n"), 0o644)
	s := runconfig.Settings{Dir: dir, Validate: "true", Agent: []string{"sh"}, Prompt: p}
	if err := Check(&s); err == nil || !strings.HasPrefix(err.Error(), "prompt "+p+" is not UTF-8 text") {
		t.Errorf("Check: %v", err)
	}
}
