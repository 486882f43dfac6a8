package merge

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A FIFO the agent left where git reads a .gitignore in the run's
// worktree blocks git for good, in a merge that ignores the signals that
// would end it. Past WorkLimit its git is stopped, and the merge fails
// before the primary worktree is touched. The merge runs in a process of
// its own: gitrun.Abort stops every git of the process.
func TestWorkLimitStopsBlockedWorktree(t *testing.T) {
	if spec := os.Getenv("MERGE_WORKLIMIT_SPEC"); spec != "" {
		var s Spec
		json.Unmarshal([]byte(spec), &s)
		_, err := Run(s)
		json.NewEncoder(os.Stdout).Encode(map[string]string{"err": errString(err)})
		return
	}
	r := newRepo(t)
	fifo := filepath.Join(r.wt, "d", ".gitignore")
	os.MkdirAll(filepath.Dir(fifo), 0o755)
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFO here:", err)
	}
	// a git left blocked (the test failing) reads end-of-file and goes on
	t.Cleanup(func() {
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	spec, _ := json.Marshal(Spec{Primary: r.primary, Worktree: r.wt, RunBranch: "run/feat", Target: "agent/feat",
		Base: "main", Strategy: Squash, Message: "m", WorkMessage: "w", WorkLimit: 2 * time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestWorkLimitStopsBlockedWorktree$")
	cmd.Env = append(os.Environ(), "MERGE_WORKLIMIT_SPEC="+string(spec))
	out, err := cmd.Output()
	if ctx.Err() != nil {
		t.Fatal("the merge still ran after 2 minutes: blocked in git")
	}
	if err != nil {
		t.Fatalf("merge process: %v: %s", err, out)
	}
	if !strings.Contains(string(out), "did not finish reading the run's worktree") {
		t.Errorf("merge result: %s", out)
	}
	if h := r.git(r.primary, "symbolic-ref", "--short", "HEAD"); h != "main" {
		t.Errorf("primary on %s, want main (untouched)", h)
	}
	if st := r.git(r.primary, "status", "--porcelain"); st != "" {
		t.Errorf("primary changed:\n%s", st)
	}
	if b := r.git(r.primary, "branch", "--list", "agent/feat"); b != "" {
		t.Errorf("target made: %s", b)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
