package gitstore

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A textconv, a smudge filter and an fsmonitor planted in a run's private
// git directory (config and info/attributes) run under no call of the
// store's: the directory's config is loopkit's alone, checked every time.
func TestPrivateConfigIsChecked(t *testing.T) {
	repo := committedRepo(t, "a\n")
	where, err := Locate(repo)
	if err != nil {
		t.Fatal(err)
	}
	runDir := filepath.Join(t.TempDir(), "r")
	r, base, err := AfterStep(runDir, where, "", "")
	if err != nil {
		t.Fatal(err)
	}
	write(t, repo, "a.txt", "b\n", 0o644)
	tree, err := r.Snapshot(where)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.SetIteration(1, tree, ""); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	marker := filepath.Join(tmp, "ran")
	write(t, tmp, "evil.sh", "echo ran >> "+marker+"\ncat\n", 0o755)
	evil := "sh " + filepath.Join(tmp, "evil.sh")
	write(t, r.GitDir, "config", "[diff \"x\"]\n\ttextconv = "+evil+"\n[filter \"x\"]\n\tsmudge = "+evil+"\n[core]\n\tfsmonitor = "+evil+"\n", 0o644)
	os.MkdirAll(filepath.Join(r.GitDir, "info"), 0o755)
	write(t, r.GitDir, "info/attributes", "* diff=x filter=x\n", 0o644)
	var out bytes.Buffer
	err = r.Diff(&out, base, tree)
	if err == nil || !strings.Contains(err.Error(), "was not written by loopkit") {
		t.Errorf("diff: %v, want the config refused", err)
	}
	if err := r.Checkout(tree, filepath.Join(t.TempDir(), "co")); err == nil {
		t.Error("checkout through a planted config")
	}
	if _, err := r.Tree(1); err == nil {
		t.Error("tree through a planted config")
	}
	if data, _ := os.ReadFile(marker); len(data) > 0 {
		t.Errorf("planted commands ran: %q", data)
	}
	// loopkit's own config (a SHA-256 repository's) and none are accepted
	os.Remove(filepath.Join(r.GitDir, "config"))
	if _, err := r.Tree(1); err != nil {
		t.Errorf("without a config: %v", err)
	}
	out.Reset()
	// the textconv of the user's global config is not run on the store's
	// diffs either: the patch is the bytes
	os.Remove(filepath.Join(r.GitDir, "info/attributes"))
	write(t, filepath.Dir(repo), "gitconfig", "[diff \"x\"]\n\ttextconv = "+evil+"\n", 0o644)
	write(t, r.GitDir, "info/attributes", "* diff=x\n", 0o644)
	if err := r.Diff(&out, base, tree); err != nil || !strings.Contains(out.String(), "+b") {
		t.Errorf("diff: %v %q", err, out.String())
	}
	if data, _ := os.ReadFile(marker); len(data) > 0 {
		t.Errorf("a textconv ran on the store's diff: %q", data)
	}
}

// TestBigFileText: the threshold git is given is bigFile.
func TestBigFileText(t *testing.T) {
	if bigFileText != strconv.Itoa(bigFile) {
		t.Errorf("bigFileText %s, bigFile %d", bigFileText, bigFile)
	}
}

// The repository's config can tell git to trust a file's size and
// whole-second mtime alone (core.checkStat, core.trustctime,
// core.ignoreStat): an agent that writes it, then changes a file keeping
// its size and mtime, would have the change left out of the snapshot.
// The store's snapshots judge a file by git's default stat check.
func TestPlantedStatConfigHidesNothing(t *testing.T) {
	repo := committedRepo(t, "hello BUG(\n")
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	os.Chtimes(filepath.Join(repo, "a.txt"), old, old)
	run(t, repo, "git", "update-index", "--refresh") // a clean stat cache, as in a repository not just checked out
	where, err := Locate(repo)
	if err != nil {
		t.Fatal(err)
	}
	r, first, err := AfterStep(filepath.Join(t.TempDir(), "r"), where, "", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range [][2]string{{"core.checkStat", "minimal"}, {"core.trustctime", "false"}, {"core.ignoreStat", "true"}} {
		run(t, repo, "git", "config", kv[0], kv[1])
	}
	// a new file renamed over (its inode differs: no wait for the clock to
	// pass the second its ctime would be compared in)
	write(t, repo, "a.new", "hello FIX(\n", 0o644)
	os.Chtimes(filepath.Join(repo, "a.new"), old, old)
	if err := os.Rename(filepath.Join(repo, "a.new"), filepath.Join(repo, "a.txt")); err != nil {
		t.Fatal(err)
	}
	tree, err := r.Snapshot(where)
	if err != nil {
		t.Fatal(err)
	}
	if tree == first {
		t.Error("a same-size change with its mtime put back is missing from the snapshot")
	}
}
