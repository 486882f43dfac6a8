package tui

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// built holds the commands the terminal tests run, built once for the
// package: each `go build` links every binary anew (the tests used to
// build loop-tui three times).
var built struct {
	once sync.Once
	dir  string
	err  error
}

// commandsDir builds loop-view, loop-tui, loop-drive, loop-step,
// loop-validate and loop-record, with scripts/loop beside them as make
// install puts it, and returns their directory.
func commandsDir(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		root, _ := filepath.Abs("../..")
		dir, err := os.MkdirTemp("", "loopkit-tui-bin-")
		if err != nil {
			built.err = err
			return
		}
		built.dir = dir
		build := exec.Command("go", "build", "-o", dir+"/", "./cmd/loop-view", "./cmd/loop-tui", "./cmd/loop-drive",
			"./cmd/loop-step", "./cmd/loop-validate", "./cmd/loop-record")
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		built.err = os.Symlink(filepath.Join(root, "scripts/loop"), filepath.Join(dir, "loop"))
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.dir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}
