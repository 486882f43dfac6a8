package view

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/loopkit/loopkit/internal/record"
)

// HeadChars is how much of stdout the collapsed Output view shows.
const HeadChars = 200

var (
	outputKeys = sync.OnceValue(func() map[string]bool {
		return keySet("iteration", "exit_code", "status", "duration_ms", "stdout")
	})
	fullKeys = sync.OnceValue(func() map[string]bool {
		return keySet("iteration", "exit_code", "status", "duration_ms", "stdout", "stderr", "stdout_truncated", "stderr_truncated")
	})
)

// Output is the Output view: "## Iteration N — Exit <code> — <ms>ms"
// and the first 200 characters of stdout, or with Full all of stdout, then
// stderr when there is any.
type Output struct {
	W     io.Writer
	Style Style
	Full  bool
	RunID string
	n     int
}

// Write renders one stored IterationLog.
func (v *Output) Write(rec *Record) error {
	keys := outputKeys()
	if v.Full {
		keys = fullKeys()
	}
	it, err := decodeLog(rec.Raw, keys)
	if err != nil {
		return &LineError{Line: rec.Line, Offset: rec.Offset, Err: err}
	}
	var b strings.Builder
	if v.n > 0 {
		b.WriteByte('\n')
	}
	v.n++
	head := fmt.Sprintf("## Iteration %d — Exit %d — %dms", it.Iteration, it.ExitCode, it.DurationMs)
	b.WriteString(v.Style.paint(exitColor(it.ExitCode, it.Status), head) + "\n")
	if v.Full {
		v.full(&b, it)
	} else {
		body(&b, record.HeadChars(it.Stdout, HeadChars))
		if len(it.Stdout) > HeadChars && record.HeadChars(it.Stdout, HeadChars) != it.Stdout {
			fmt.Fprintf(&b, "[... more: loop-view output %s %d --full]\n", v.RunID, it.Iteration)
		}
	}
	_, err = io.WriteString(v.W, b.String())
	return err
}

func (v *Output) full(b *strings.Builder, it *record.IterationLog) {
	b.WriteString("### stdout\n")
	body(b, it.Stdout)
	if it.StdoutTruncated {
		fmt.Fprintf(b, "[stdout cut to its end; all of it: loop-view show %s %d --stdout]\n", v.RunID, it.Iteration)
	}
	if it.Stderr == "" {
		return
	}
	b.WriteString("### stderr\n")
	body(b, it.Stderr)
	if it.StderrTruncated {
		fmt.Fprintf(b, "[stderr cut to its end; all of it: loop-view show %s %d --stderr]\n", v.RunID, it.Iteration)
	}
}

// body writes child output escaped for the terminal, ending in a newline.
func body(b *strings.Builder, s string) {
	if s == "" {
		b.WriteString("[no output]\n")
		return
	}
	b.WriteString(Escape(s, true))
	if !strings.HasSuffix(s, "\n") {
		b.WriteByte('\n')
	}
}
