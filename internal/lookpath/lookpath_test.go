package lookpath

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// A git planted in the current folder, reached through PATH's "." or a
// relative entry, is skipped for the one in an absolute folder after it.
func TestRelativeEntriesSkipped(t *testing.T) {
	work, sys := t.TempDir(), t.TempDir()
	for _, dir := range []string{work, filepath.Join(work, "bin"), sys} {
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "git"), []byte("#!/bin/sh\n"), 0o755)
	}
	t.Chdir(work)
	for _, path := range []string{".:" + sys, "bin:" + sys, ":" + sys, sys + "::bin"} {
		t.Setenv("PATH", path)
		if got, err := Find("git"); err != nil || got != filepath.Join(sys, "git") {
			t.Errorf("PATH=%s: Find(git) = %q, %v; want %s", path, got, err, filepath.Join(sys, "git"))
		}
	}
	t.Setenv("PATH", ".:bin")
	if _, err := Find("git"); !errors.Is(err, exec.ErrNotFound) {
		t.Errorf("PATH=.:bin: Find(git) err %v, want not found", err)
	}
	if got := Command("git"); got != "git" {
		t.Errorf("Command(git) with none found = %q", got)
	}
	if got, err := Find("./git"); err != nil || got != "./git" {
		t.Errorf("Find(./git) = %q, %v", got, err)
	}
}
