package gitstore

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// setAlternates writes the alternates file of the run at runDir.
func setAlternates(t *testing.T, runDir string, lines ...string) {
	t.Helper()
	info := filepath.Join(runDir, Dir, "objects", "info")
	if err := os.MkdirAll(info, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(info, "alternates"), []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// runAlternates, which Gone, borrowed and Known all read through, keeps
// safefile's refusals: the agent can write the run's git directory.
func TestRunAlternates(t *testing.T) {
	runDir := t.TempDir()
	if got := runAlternates(runDir); got != nil {
		t.Errorf("no alternates file: %q, want nil", got)
	}
	setAlternates(t, runDir, "/a/objects", "/b/objects")
	if got, want := runAlternates(runDir), []string{"/a/objects", "/b/objects"}; !reflect.DeepEqual(got, want) {
		t.Errorf("runAlternates = %q, want %q", got, want)
	}
	for _, kind := range []string{"fifo", "link", "huge"} {
		plant(t, filepath.Join(runDir, Dir, "objects", "info", "alternates"), kind, maxAlternates+1)
		within(t, kind, func() {
			if got := runAlternates(runDir); got != nil {
				t.Errorf("alternates as a %s read: %q", kind, got)
			}
		})
	}
}

// Gone is recorded plus movedTo: an error only when the recorded
// repository is gone and the store did not move with its workspace.
func TestGone(t *testing.T) {
	repo := committedRepo(t, "a\n")
	w, err := Locate(repo)
	if err != nil {
		t.Fatal(err)
	}
	runDir := filepath.Join(repo, StoreName, "runs", "r")
	for _, c := range []struct {
		name string
		alts []string // nil: no alternates file
		gone bool
	}{
		{"no run directory", nil, false},
		{"no alternates (a plain folder's run)", nil, false},
		{"recorded repository there", []string{w.Objects}, false},
		{"relative first alternate", []string{"objects", "/nowhere/.git/objects"}, false},
		// the agent removed .git: its folder is left, and git would find a repository further up
		{".git removed", []string{filepath.Join(t.TempDir(), ".git", "objects")}, true},
		// not under a .git: nothing says where it went
		{"other objects gone", []string{filepath.Join(t.TempDir(), "x", "objects")}, true},
		// the whole folder gone, the store's folder a work tree's top: copied with its store
		{"workspace moved", []string{filepath.Join(t.TempDir(), "old", ".git", "objects")}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			os.RemoveAll(filepath.Join(repo, StoreName))
			dir := runDir
			if c.name == "no run directory" {
				dir = ""
			} else if c.alts != nil {
				setAlternates(t, runDir, c.alts...)
			}
			err := Gone(dir)
			if (err != nil) != c.gone {
				t.Fatalf("Gone = %v, want an error: %v", err, c.gone)
			}
			if err != nil && !strings.Contains(err.Error(), c.alts[0]) {
				t.Errorf("Gone = %v, not naming %s", err, c.alts[0])
			}
			objects, gone := recorded(runDir)
			moved := ""
			if gone {
				moved = movedTo(runDir, objects)
			}
			if c.name == "workspace moved" && moved != w.Objects {
				t.Errorf("movedTo = %q, want %q", moved, w.Objects)
			} else if c.name != "workspace moved" && moved != "" {
				t.Errorf("movedTo = %q, want none", moved)
			}
		})
	}
}
