package loopdrive

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runconfig"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/testsupport/otheruser"
	"github.com/loopkit/loopkit/internal/testsupport/storetest"
)

// TestInterruptedRunsReadsHeadsOnly: loop resume --interrupted looks for
// running runs whose driver is gone, in every store remembered; of a run
// not running it reads only run.json's head. Decoding each whole (as the
// runs list does) took 3 s on a store of 5,000 runs. Counted in
// allocations per run; the interrupted runs are still found, oldest first.
func TestInterruptedRunsReadsHeadsOnly(t *testing.T) {
	st := storetest.Driven(t, record.RunRunning) // "r", interrupted: no driver holds it
	const n = 100
	for i := 1; i < n; i++ {
		r := store.NewRun(fmt.Sprintf("run-%03d", i), "a run", int64(i))
		r.Status = record.RunCompleted
		r.Settings = runconfig.Defaults()
		r.Settings.Agent = []string{"claude", "-p"}
		if i == 7 || i == 3 {
			r.Status = record.RunRunning // interrupted too
		}
		if i == 5 { // its driver killed while it waited for a slot: it
			// stayed queued, and no resume at login took it up
			r.Status = record.RunQueued
		}
		if err := st.CreateRun(r); err != nil {
			t.Fatal(err)
		}
	}
	jobs, err := interruptedRuns(st.Root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, j := range jobs {
		got = append(got, j.run)
	}
	if fmt.Sprint(got) != "[run-003 run-005 run-007 r]" {
		t.Errorf("interrupted runs %v, want [run-003 run-005 run-007 r] (oldest first)", got)
	}
	allocs := testing.AllocsPerRun(3, func() { interruptedRuns(st.Root) })
	if perRun := allocs / n; perRun > 100 {
		t.Errorf("interruptedRuns allocates %.0f times per run, want at most 100 (run.json decoded whole?)", perRun)
	}
}

// resumeChild, set, makes TestInterruptedRunsUnreachableStore the other
// user's part of itself: it scans the store the variable names.
const resumeChild = "LOOPKIT_RESUME_CHILD"

// A remembered store behind a folder the user closed (chmod 000) was
// skipped as "no store here" by loop resume --interrupted --all-stores:
// its interrupted runs were never resumed, and nothing said why. Now the
// warning names the folder and the chmod.
func TestInterruptedRunsUnreachableStore(t *testing.T) {
	if root := os.Getenv(resumeChild); root != "" {
		_, err := interruptedRuns(root)
		fmt.Printf("scan: %v\n", err)
		return
	}
	ws := filepath.Join(otheruser.Reachable(t), "app")
	if err := os.MkdirAll(filepath.Join(ws, ".loop", "runs"), 0o700); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		if err := exec.Command("chown", "-R", "4242:4242", ws).Run(); err != nil {
			t.Skip("cannot chown:", err)
		}
	}
	if err := os.Chmod(ws, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(ws, 0o700) })
	out := otheruser.Rerun(t, resumeChild+"="+filepath.Join(ws, ".loop"))
	want := "scan: store " + ws + "/.loop cannot be reached: " + ws + " (mode 0000) does not let uid 4242 in: chmod u+rwx " + ws + "\n"
	if !strings.Contains(out, want) {
		t.Errorf("as uid 4242:\n%s\nwant %q", out, want)
	}
}
