package otelexport

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The checkpoint lives in the store, in the agent's reach: a linked
// export/ is neither read nor written through, a FIFO in a checkpoint's
// place is refused at once, never waited on.
func TestCheckpointPlanted(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	os.Symlink(outside, filepath.Join(root, CheckpointDir))
	if _, err := LoadCheckpoint(root, "http://collector"); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("a linked export/: %v", err)
	}
	cp := &Checkpoint{Destination: "d", Runs: map[string]*RunMarks{}, path: filepath.Join(root, CheckpointDir, "x.json")}
	if err := cp.Save(); err == nil {
		t.Fatal("saved through a linked export/")
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatalf("written outside the store: %v", entries)
	}

	root = t.TempDir()
	os.Mkdir(filepath.Join(root, CheckpointDir), 0o700)
	sum := sha256.Sum256([]byte("http://collector"))
	fifo := filepath.Join(root, CheckpointDir, hex.EncodeToString(sum[:8])+".json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := LoadCheckpoint(root, "http://collector"); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "FIFO") {
			t.Fatalf("a FIFO checkpoint: %v", err)
		}
	case <-time.After(20 * time.Second):
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close() // releases the reader
		}
		t.Fatal("still waiting on a FIFO checkpoint after 20 s")
	}
}

// A checkpoint keeps marks only for the runs its store still has: a
// --follow on a long-lived runner kept one for every run it ever sent,
// long after loop-clean had removed them.
func TestCheckpointForgetsRunsGone(t *testing.T) {
	root := t.TempDir()
	kept, gone := "20261128-091204-470-task-3688", "20261128-091205-967-task-de2f"
	for _, id := range []string{kept, gone} {
		if err := os.MkdirAll(filepath.Join(root, "runs", id), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	cp, err := LoadCheckpoint(root, "http://collector")
	if err != nil {
		t.Fatal(err)
	}
	cp.Marks(kept, 1).Iteration = 2
	cp.Marks(gone, 1).Iteration = 3
	if err := cp.Save(); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(root, "runs", gone)) // loop-clean
	if err := cp.Save(); err != nil {
		t.Fatal(err)
	}
	cp, err = LoadCheckpoint(root, "http://collector")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := cp.Runs[gone]; ok || len(cp.Runs) != 1 || cp.Runs[kept].Iteration != 2 {
		t.Errorf("checkpoint runs %v, want only %s at iteration 2", cp.Runs, kept)
	}
}
