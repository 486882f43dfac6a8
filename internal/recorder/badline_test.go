package recorder

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/loopkit/loopkit/internal/store"
)

// A last log line that parses but is no commit (a nonsense or out-of-order
// iteration number) is set aside like a torn line: the folders committed by
// the earlier lines stay, and the next iteration follows the last real one.
func TestBadLastLineIsNoCommit(t *testing.T) {
	for name, bad := range map[string]string{
		"negative": `{"iteration":-5}`,
		"string":   `{"iteration":"3"}`,
		"gap":      `{"iteration":99}`,
		"repeat":   `{"iteration":2}`,
		"float":    `{"iteration":3.5}`,
		"missing":  `{"id":"x"}`,
	} {
		t.Run(name, func(t *testing.T) {
			r := newRecorder(t)
			for i := 0; i < 2; i++ {
				if _, err := r.Record("x", validation(t, 0, "out"), 0); err != nil {
					t.Fatal(err)
				}
			}
			log := r.St.RunPath("x", store.IterationsFile)
			f, _ := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0)
			f.WriteString(bad + "\n")
			f.Close()
			res, err := r.Record("x", validation(t, 1, "next"), 0)
			if err != nil {
				t.Fatal(err)
			}
			if res.Log.Iteration != 3 {
				t.Fatalf("recorded as iteration %d, want 3", res.Log.Iteration)
			}
			for n := 1; n <= 3; n++ {
				if _, err := os.Stat(filepath.Join(r.St.IterationDir("x", n), ValidationStdout)); err != nil {
					t.Fatalf("folder of iteration %d: %v", n, err)
				}
			}
			entries, _ := os.ReadDir(r.St.RunPath("x", store.IterationsDir))
			if len(entries) != 3 {
				t.Fatalf("%d folders in iterations/, want 3", len(entries))
			}
			aside, _ := filepath.Glob(log + ".bad-*")
			if len(aside) != 1 {
				t.Fatalf("bad line not set aside: %v", aside)
			}
			if data, _ := os.ReadFile(aside[0]); string(data) != bad+"\n" {
				t.Fatalf("set aside %q", data)
			}
		})
	}
}
