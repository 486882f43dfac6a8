package gitstore

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A record's snapshot (AfterStep) writes the blobs of what the iteration
// changed, few: git flushes each (core.fsyncMethod=fsync), not in a batch
// whose folder and flush file are created and freed at every record. The
// step's base, which may write a dirty tree's every file, keeps the batch.
func TestAfterStepFlushesEachObject(t *testing.T) {
	repo := committedRepo(t, "a\n")
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	bin, log := t.TempDir(), filepath.Join(t.TempDir(), "git.log")
	wrapper := "#!/bin/sh\nprintf '%s\\n' \"$*\" >>" + log + "\nexec " + real + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	where, err := Locate(repo)
	if err != nil {
		t.Fatal(err)
	}
	odb := filepath.Join(t.TempDir(), "odb")
	write(t, repo, "b.txt", "dirty\n", 0o644)
	if _, _, _, err := Base(repo, odb, "", nil); err != nil {
		t.Fatal(err)
	}
	method := func() string { // of the last git add logged
		b, _ := os.ReadFile(log)
		m := ""
		for _, l := range strings.Split(string(b), "\n") {
			if strings.Contains(l, " add ") {
				m = l[strings.LastIndex(l, "core.fsyncMethod="):]
				m, _, _ = strings.Cut(m, " ")
			}
		}
		return m
	}
	if got := method(); got != "core.fsyncMethod=batch" {
		t.Errorf("the base's git add: %q, want core.fsyncMethod=batch", got)
	}
	write(t, repo, "a.txt", "changed by the step\n", 0o644)
	r, tree, err := AfterStep(filepath.Join(t.TempDir(), "r"), where, odb, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := method(); got != "core.fsyncMethod=fsync" {
		t.Errorf("the record's git add: %q, want core.fsyncMethod=fsync", got)
	}
	if got := run(t, repo, "git", "--git-dir", r.GitDir, "cat-file", "blob", tree+":a.txt"); got != "changed by the step\n" {
		t.Errorf("a.txt recorded as %q", got)
	}
}
