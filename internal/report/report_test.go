package report

import (
	"testing"

	"github.com/loopkit/loopkit/internal/record"
)

func TestPrimaryFailure(t *testing.T) {
	msg := "command not found: gotest"
	cases := []struct {
		it   record.IterationLog
		want string
	}{
		{record.IterationLog{Status: "pass", Stdout: "error"}, "-"},
		{record.IterationLog{Status: "fail", Stdout: "=== RUN TestA\n--- FAIL: TestA (0.00s)\n"}, "--- FAIL: TestA (0.00s)"},
		{record.IterationLog{Status: "fail", Stdout: "building\n", Stderr: "main.go:3:2: undefined: x\n"}, "main.go:3:2: undefined: x"},
		{record.IterationLog{Status: "error", ExitCode: -1, Error: &msg}, msg},
		{record.IterationLog{Status: "fail", Stdout: "just text\n"}, "just text"},
		{record.IterationLog{Status: "fail", ExitCode: 3}, "exit 3"},
		{record.IterationLog{Status: "fail", Stdout: "a | b FAIL\x1b[0m"}, `a \| b FAIL [0m`},
	}
	for _, c := range cases {
		if got := PrimaryFailure(&c.it); got != c.want {
			t.Errorf("PrimaryFailure(%q/%q) = %q, want %q", c.it.Stdout, c.it.Stderr, got, c.want)
		}
	}
}
