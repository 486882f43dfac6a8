package progress

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/loopkit/loopkit/internal/record"
)

// FuzzReadRecords feeds arbitrary bytes to the stdin decoder: it never
// panics, keeps at most keep records, and fails only with an InputError, a
// torn tail, or nothing.
func FuzzReadRecords(f *testing.F) {
	f.Add([]byte(`{"iteration":1,"validation_command":"t","exit_code":1,"stdout":"x"}`+"\n"), 5)
	f.Add([]byte(`{"type":"validation","command":"go test","exit_code":2,"stderr":"é"}`), 1)
	f.Add([]byte("{\"type\":\"step\"}\n\n{\"iteration\":"), 3)
	f.Fuzz(func(t *testing.T, data []byte, keep int) {
		keep %= 50
		logs, err := ReadRecords(bytes.NewReader(data), keep)
		var ie *record.InputError
		if err != nil && !errors.As(err, &ie) && !errors.Is(err, ErrTornTail) {
			t.Fatalf("unexpected error kind %T: %v", err, err)
		}
		if len(logs) > max(keep, 0) {
			t.Fatalf("%d records kept, limit %d", len(logs), keep)
		}
	})
}

// FuzzRender checks the renderer against a byte-for-byte port of seed
// 002's record() on ASCII text (where bytes are characters), and that any
// valid UTF-8 output renders as valid UTF-8.
func FuzzRender(f *testing.F) {
	f.Add("test failed\n", "", "cargo test", 1, 500)
	f.Add(strings.Repeat("x", 200), "err", "make", 0, 50)
	f.Add("", "  only stderr  \n", "t", -1, 3)
	f.Add("日本語 é 🦀\n", "", "t", 2, 4)
	f.Fuzz(func(t *testing.T, stdout, stderr, command string, exitCode, maxChars int) {
		maxChars %= 1000
		if maxChars < 0 {
			maxChars = -maxChars
		}
		it := record.IterationLog{Iteration: 3, ValidationCommand: command, ExitCode: exitCode, Stdout: stdout, Stderr: stderr, DurationMs: 42, FilesChanged: []string{"a.go"}}
		got := Render([]record.IterationLog{it}, Limits{MaxEntries: 5, MaxChars: maxChars})
		if ascii(stdout) && ascii(stderr) {
			if want := seedRecord(&it, maxChars); got != want {
				t.Fatalf("differs from seed 002\n got %q\nwant %q", got, want)
			}
		}
		if utf8.ValidString(stdout) && utf8.ValidString(stderr) && utf8.ValidString(command) && !utf8.ValidString(got) {
			t.Fatalf("invalid UTF-8 rendered: %q", got)
		}
	})
}

// FuzzFill: filling never panics, and a template without "<<" is unchanged.
func FuzzFill(f *testing.F) {
	f.Add("Task: <<task>>\n<<#if progress>>\n<<progress>>\n<</if>>\n", "## Iteration 1\n", true)
	f.Add("<<a>><<progress>><<#if progress>>", "", false)
	f.Fuzz(func(t *testing.T, template, block string, appendProgress bool) {
		out, _ := Fill(template, block, map[string]string{"task": "T"}, appendProgress)
		if !strings.Contains(template, "<<") && (block == "" || !appendProgress) && out != template {
			t.Fatalf("template without placeholders changed: %q -> %q", template, out)
		}
		if template == Placeholder && out != block {
			t.Fatalf("<<progress>> alone gave %q, want the block", out)
		}
	})
}

// seedRecord is seed 002's SystemCapturedProgress::record, line for line,
// slicing bytes as the Rust does.
func seedRecord(it *record.IterationLog, maxOutputChars int) string {
	output := it.Stdout
	if output == "" {
		output = it.Stderr
	}
	truncated := output
	if len(output) > maxOutputChars {
		start := len(output) - maxOutputChars
		truncated = "...[truncated]...\n" + output[start:]
	}
	files := "none"
	if len(it.FilesChanged) > 0 {
		files = strings.Join(it.FilesChanged, ", ")
	}
	return "## Iteration " + strconv.Itoa(it.Iteration) + "\n" +
		"**Command:** `" + it.ValidationCommand + "`\n" +
		"**Exit code:** " + strconv.Itoa(it.ExitCode) + "\n" +
		"**Duration:** " + strconv.FormatInt(it.DurationMs, 10) + "ms\n" +
		"**Files changed:** " + files + "\n" +
		"**Output:**\n```\n" + strings.TrimSpace(truncated) + "\n```\n\n"
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
