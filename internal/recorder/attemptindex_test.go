package recorder

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
)

func attemptInput(t *testing.T, i int) *record.Input {
	t.Helper()
	return decode(t, fmt.Sprintf(`{"type":"step","command":"agent","phase":"implementation","exit_code":1,"started_at":%d,"ended_at":%d}`, 1000+i, 2000+i))
}

// padAttempts makes run x's attempts.jsonl n lines long, each a copy of
// its first with its own number and digest, as a long run leaves it.
func padAttempts(t *testing.T, r *Recorder, n int) {
	t.Helper()
	path := r.St.RunPath("x", store.AttemptsFile)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	first := string(bytes.TrimSuffix(data, []byte("\n")))
	var b strings.Builder
	b.WriteString(first + "\n")
	for i := 2; i <= n; i++ {
		line := strings.Replace(first, `"attempt":1,`, fmt.Sprintf(`"attempt":%d,`, i), 1)
		line = strings.Replace(line, `"id":"x-attempt-1"`, fmt.Sprintf(`"id":"x-attempt-%d"`, i), 1)
		line = strings.Replace(line, `"input_digest":"`, fmt.Sprintf(`"input_digest":"pad%d-`, i), 1)
		b.WriteString(line + "\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Recording an attempt in the driver's holder reads only the attempts
// appended since its last one, not the whole log: allocations for the
// next attempt do not grow with the attempts a run already has. (Main
// decoded every line again for each attempt: quadratic over a run.)
func TestRecordAttemptCostFlat(t *testing.T) {
	allocs := func(n int) float64 {
		r := newRecorder(t)
		if _, err := r.RecordAttempt("x", attemptInput(t, 0), ""); err != nil {
			t.Fatal(err)
		}
		padAttempts(t, r, n)
		i := n
		return testing.AllocsPerRun(1, func() {
			i++
			res, err := r.RecordAttempt("x", attemptInput(t, i), "")
			if err != nil || res.Repeat || res.Attempt.Attempt != i {
				t.Fatalf("attempt %d: %+v, %v", i, res, err)
			}
		})
	}
	small, large := allocs(20), allocs(2000)
	if large > 2*small {
		t.Fatalf("recording an attempt after 2000 made %.0f allocations, after 20 %.0f: it reads the whole log", large, small)
	}
}

// The index finds a repeat anywhere in the log, and is not fooled by a log
// cut back and written again behind it.
func TestAttemptIndexRepeats(t *testing.T) {
	r := newRecorder(t)
	for i := 1; i <= 5; i++ {
		if _, err := r.RecordAttempt("x", attemptInput(t, i), ""); err != nil {
			t.Fatal(err)
		}
	}
	res, err := r.RecordAttempt("x", attemptInput(t, 2), "")
	if err != nil || !res.Repeat || res.Attempt.Attempt != 2 {
		t.Fatalf("repeat of attempt 2: %+v, %v", res, err)
	}
	// another writer replaces the log: attempt 2's input is now line 1
	path := r.St.RunPath("x", store.AttemptsFile)
	data, _ := os.ReadFile(path)
	lines := bytes.SplitAfter(data, []byte("\n"))
	second := bytes.Replace(lines[1], []byte(`"attempt":2,`), []byte(`"attempt":1,`), 1)
	second = bytes.Replace(second, []byte(`"id":"x-attempt-2"`), []byte(`"id":"x-attempt-1"`), 1)
	os.Remove(path)
	if err := os.WriteFile(path, second, 0o600); err != nil {
		t.Fatal(err)
	}
	if res, err := attempts.find(path, Digest(attemptInput(t, 2))); err != nil || res == nil || res.Attempt.Attempt != 1 {
		t.Fatalf("after the log was replaced: %+v, %v", res, err)
	}
	if res, err := attempts.find(path, Digest(attemptInput(t, 3))); err != nil || res != nil {
		t.Fatalf("attempt 3 is gone from the log, found %+v, %v", res, err)
	}
}
