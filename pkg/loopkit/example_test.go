package loopkit_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/loopkit/loopkit/pkg/loopkit"
)

// pkgDir is this package's directory: TestMain leaves it.
var pkgDir string

// TestMain runs the examples in a workspace whose .loop is a copy of
// testdata/store, a store made by loop-validate | loop-record: two runs,
// fix-parser (failed, then passed; completed) and add-docs (still running).
func TestMain(m *testing.M) {
	var err error
	if pkgDir, err = os.Getwd(); err != nil {
		log.Fatal(err)
	}
	src := filepath.Join(pkgDir, "testdata", "store")
	ws, err := os.MkdirTemp("", "loopkit-example-")
	if err != nil {
		log.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(ws, ".loop"), os.DirFS(src)); err != nil {
		log.Fatal(err)
	}
	if err := os.Chdir(ws); err != nil {
		log.Fatal(err)
	}
	code := m.Run()
	os.RemoveAll(ws)
	os.Exit(code)
}

func Example() {
	st, err := loopkit.Open(".loop")
	if err != nil {
		log.Fatal(err)
	}
	runs, err := st.Runs() // newest first
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range runs {
		fmt.Printf("%s %s after %d iterations\n", r.RunID, r.Status, r.Iteration)
	}
	// Output:
	// add-docs running after 1 iterations
	// fix-parser completed after 2 iterations
}

func ExampleStore_Iterations() {
	st, err := loopkit.Open(".loop")
	if err != nil {
		log.Fatal(err)
	}
	its, err := st.Iterations("fix-parser")
	if err != nil {
		log.Fatal(err)
	}
	for _, it := range its {
		fmt.Printf("[%d] %s exit %d: %s", it.Iteration, it.Status, it.ExitCode, it.Stdout)
	}
	// Output:
	// [1] fail exit 1: --- FAIL: TestParse
	// [2] pass exit 0: ok
}

func ExampleStore_Follow() {
	st, err := loopkit.Open(".loop")
	if err != nil {
		log.Fatal(err)
	}
	// Follow returns nil once the run has ended and every iteration
	// committed before that was passed on; a run still going is followed
	// until ctx is done.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err = st.Follow(ctx, "fix-parser", func(it loopkit.IterationLog) error {
		fmt.Println("iteration", it.Iteration, it.Status)
		return nil
	})
	fmt.Println("ended:", err)
	// Output:
	// iteration 1 fail
	// iteration 2 pass
	// ended: <nil>
}

func ExampleStore_Events() {
	st, err := loopkit.Open(".loop")
	if err != nil {
		log.Fatal(err)
	}
	evs, err := st.Events("fix-parser")
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range evs {
		fmt.Println(e.Type)
	}
	// Output:
	// RUN_CREATED
	// ITERATION_RECORDED
	// ITERATION_RECORDED
	// RUN_COMPLETED
}
