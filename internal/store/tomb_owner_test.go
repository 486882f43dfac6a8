package store

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopkit/loopkit/internal/testsupport/otheruser"
)

const tombChild = "LOOPKIT_TOMB_CHILD"

// Two tombstones that each hold a folder of root's (a run an older loopkit
// wrote under sudo): their errors were joined by errors.Join, a newline
// inside loop-clean's one-line error, and the clean counted one failure.
// Now both are named on one line and counted.
func TestFinishTombstonesOfRootOnOneLine(t *testing.T) {
	if root := os.Getenv(tombChild); root != "" {
		d, err := OpenDeleter(&Store{Root: root})
		if err != nil {
			t.Fatal(err)
		}
		done, failed, _, err := d.FinishTombstones()
		fmt.Printf("tombs: %d %d %q\n", done, failed, fmt.Sprint(err))
		return
	}
	otheruser.Rerunnable(t)
	st := &Store{Root: filepath.Join(otheruser.Reachable(t), ".loop")}
	if err := st.Init(); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a-1", "b-2"} {
		dir := filepath.Join(st.RunsDir(), TombPrefix+id, "iterations", "001")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "agent.stdout"), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// all of it the other user's, but each tombstone's iterations root's
	if err := exec.Command("chown", "-R", fmt.Sprintf("%d:%d", otheruser.ID, otheruser.ID), st.Root).Run(); err != nil {
		t.Skip("cannot chown:", err)
	}
	for _, id := range []string{"a-1", "b-2"} {
		if err := os.Lchown(filepath.Join(st.RunsDir(), TombPrefix+id, "iterations", "001"), 0, 0); err != nil {
			t.Fatal(err)
		}
	}
	out := otheruser.Rerun(t, tombChild+"="+st.Root)
	_, line, ok := strings.Cut(out, "tombs: ")
	if !ok {
		t.Fatalf("as uid 4242: no line in %s", out)
	}
	line, _, _ = strings.Cut(line, "\n")
	var done, failed int
	var msg string
	if _, err := fmt.Sscanf(line, "%d %d %q", &done, &failed, &msg); err != nil {
		t.Fatalf("as uid 4242: %v: %s", err, line)
	}
	if done != 0 || failed != 2 || strings.Contains(msg, "\n") || strings.Count(msg, "belongs to root") != 2 {
		t.Errorf("as uid 4242: %d done, %d failed, %q; want 0, 2 and both root's folders named on one line", done, failed, msg)
	}
}
