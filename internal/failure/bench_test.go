package failure

import (
	"fmt"
	"strings"
	"testing"

	"github.com/loopkit/loopkit/internal/benchrun"

	"github.com/loopkit/loopkit/internal/record"
)

// bigVerbose is `go test -v` of 5,000 tests, two of them failing: about
// 300 KB, the kind of output where the end shows only PASS lines.
func bigVerbose() string {
	var b strings.Builder
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&b, "=== RUN   TestCase%04d\n    case_test.go:12: step %d fine\n", i, i)
		if i == 1200 || i == 3100 {
			fmt.Fprintf(&b, "    case_test.go:40: got %d, want %d\n--- FAIL: TestCase%04d (0.00s)\n", i, i+1, i)
			continue
		}
		fmt.Fprintf(&b, "--- PASS: TestCase%04d (0.00s)\n", i)
	}
	b.WriteString("FAIL\nFAIL\texample.com/big\t1.234s\nFAIL\n")
	return b.String()
}

// BenchmarkExcerpt is the failures excerpt of a 300 KB -v output, against
// the default tail cut of the same output as the baseline.
func BenchmarkExcerpt(b *testing.B) {
	out := bigVerbose()
	b.Run("failures", func(b *testing.B) {
		b.SetBytes(int64(len(out)))
		defer benchrun.CPUPerOp(b)()
		for b.Loop() {
			Excerpt(out, 500)
		}
	})
	b.Run("tail", func(b *testing.B) { // the default block's cut, with the same reading of lines
		b.SetBytes(int64(len(out)))
		defer benchrun.CPUPerOp(b)()
		for b.Loop() {
			record.TailChars(strings.Join(splitLines(Strip(out)), "\n"), 500)
		}
	})
	b.Run("extract", func(b *testing.B) {
		b.SetBytes(int64(len(out)))
		defer benchrun.CPUPerOp(b)()
		for b.Loop() {
			Extract(out)
		}
	})
}

// TestBigVerbose: both failing tests and their messages survive in 500
// characters of a 300 KB output.
func TestBigVerbose(t *testing.T) {
	ex, _ := Excerpt(bigVerbose(), 500)
	for _, want := range []string{"--- FAIL: TestCase1200", "got 1200, want 1201", "--- FAIL: TestCase3100", "got 3100, want 3101"} {
		if !strings.Contains(ex, want) {
			t.Errorf("excerpt lacks %q:\n%s", want, ex)
		}
	}
	fs := Extract(bigVerbose())
	if len(fs) != 2 || fs[0].Test != "TestCase1200" || fs[1].Message != "case_test.go:40: got 3100, want 3101" {
		t.Errorf("failures %+v", fs)
	}
}
