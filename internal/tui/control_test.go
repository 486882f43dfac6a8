package tui

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopkit/loopkit/internal/store"
)

// TestMessageWraps: an action's outcome longer than the screen is wrapped
// on the last lines, not cut at 80 columns: the point of "resume of run
// ID ended (exit status 2): loop: run ID is stuck ...; hint: loop resume
// ID --max-iterations 12" is past them. The screen stays its height.
func TestMessageWraps(t *testing.T) {
	st := &store.Store{Root: filepath.Join(t.TempDir(), ".loop")}
	m, err := New(st, "", false, Tools{})
	if err != nil {
		t.Fatal(err)
	}
	m.w, m.h = 80, 24
	id := "20261126-233002-835-task-2239"
	m.msg = "resume of run " + id + " ended (exit status 2): loop: run " + id +
		" is stuck after 2 iterations: resuming needs more; hint: loop resume " + id + " --max-iterations 12"
	lines := strings.Split(m.view(), "\n")
	if len(lines) != m.h {
		t.Fatalf("%d lines, want %d", len(lines), m.h)
	}
	tail := strings.Join(lines[len(lines)-3:], " ")
	if tail != m.msg {
		t.Fatalf("the message's last lines:\n%s\nwant:\n%s", strings.Join(lines[len(lines)-3:], "\n"), m.msg)
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

// TestResumeSaysWhy: a resume the driver refuses shows why, not only the
// hint after it: r on a stuck run showed "hint: loop resume ID
// --max-iterations 12" without the line saying the run is stuck.
func TestResumeSaysWhy(t *testing.T) {
	dir := t.TempDir()
	loop := filepath.Join(dir, "loop")
	if err := os.WriteFile(loop, []byte("#!/bin/sh\necho \"loop: run $2 is stuck after 2 iterations: resuming needs more\" >&2\necho \"hint: loop resume $2 --max-iterations 12\" >&2\nexit 2\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	st := &store.Store{Root: filepath.Join(dir, ".loop")}
	if err := st.CreateRun(store.NewRun("r1", "r1", 1)); err != nil {
		t.Fatal(err)
	}
	m, err := New(st, "", false, Tools{Loop: loop})
	if err != nil {
		t.Fatal(err)
	}
	msg, ok := m.resume("r1")().(doneMsg)
	want := "resume of run r1 ended (exit status 2): loop: run r1 is stuck after 2 iterations: resuming needs more; hint: loop resume r1 --max-iterations 12"
	if !ok || msg.text != want {
		t.Fatalf("the answer shown: %+v\nwant: %s", msg, want)
	}
}

// TestNoTerminalOneLine: loop-tui (and loop-view tui, which runs it)
// without a terminal says so in one line naming itself once: it said
// "loop-tui: loop-tui needs a terminal".
func TestNoTerminalOneLine(t *testing.T) {
	bin := commandsDir(t)
	cmd := exec.Command(filepath.Join(bin, "loop-view"), "tui")
	cmd.Env = append(os.Environ(), "LOOP_STORE="+filepath.Join(t.TempDir(), ".loop"))
	var stderr strings.Builder
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, nil, &stderr
	err := cmd.Run()
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if err == nil || !strings.HasPrefix(lines[0], "loop-tui: needs a terminal") || strings.Count(lines[0], "loop-tui") != 1 {
		t.Fatalf("without a terminal (%v):\n%s", err, stderr.String())
	}
}
