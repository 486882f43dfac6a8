package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopkit/loopkit/internal/store"
)

// TestMessageWraps: an action's outcome longer than the screen is wrapped
// on the last lines, not cut at 80 columns: the point of "driver of run
// ID ended (exit status 2): hint: loop resume ID --max-iterations 12" is
// past them. The screen stays its height.
func TestMessageWraps(t *testing.T) {
	st := &store.Store{Root: filepath.Join(t.TempDir(), ".loop")}
	m, err := New(st, "", false, Tools{})
	if err != nil {
		t.Fatal(err)
	}
	m.w, m.h = 80, 24
	id := "20261126-233002-835-task-2239"
	m.msg = "driver of run " + id + " ended (exit status 2): hint: loop resume " + id + " --max-iterations 12"
	lines := strings.Split(m.view(), "\n")
	if len(lines) != m.h {
		t.Fatalf("%d lines, want %d", len(lines), m.h)
	}
	tail := strings.Join(lines[len(lines)-2:], " ")
	if tail != m.msg {
		t.Fatalf("the message's last lines:\n%s\nwant:\n%s", strings.Join(lines[len(lines)-2:], "\n"), m.msg)
	}
	for _, l := range lines {
		if len([]rune(l)) > m.w {
			t.Errorf("a line wider than %d: %q", m.w, l)
		}
	}
}

// TestActionSpeaksAsLoop: p and C run loop-drive as `loop pause|cancel`
// do, so its answer names loop (the person pressed a key, and never typed
// loop-drive: "loop-drive: run ... is already stuck").
func TestActionSpeaksAsLoop(t *testing.T) {
	dir := t.TempDir()
	drive := filepath.Join(dir, "loop-drive")
	if err := os.WriteFile(drive, []byte("#!/bin/sh\necho \"${LOOP_PROG:-loop-drive}: run $3 is already stuck: nothing to cancel\" >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	st := &store.Store{Root: filepath.Join(dir, ".loop")}
	m, err := New(st, "", false, Tools{Drive: drive})
	if err != nil {
		t.Fatal(err)
	}
	msg, ok := m.drive("r1", "cancel")().(doneMsg)
	if !ok || msg.text != "loop: run r1 is already stuck: nothing to cancel" {
		t.Fatalf("the answer shown: %+v", msg)
	}
}
