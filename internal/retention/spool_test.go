package retention

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/loopkit/loopkit/internal/procid"
	"github.com/loopkit/loopkit/internal/store"
)

// deadPID is the pid of a process that has exited and been reaped.
func deadPID(t *testing.T) int {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func spoolFile(t *testing.T, st *store.Store, name string, age time.Duration) string {
	p := filepath.Join(st.SpoolDir(), name)
	if err := os.WriteFile(p, []byte("stream bytes\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-age)
	os.Chtimes(p, old, old)
	return p
}

func TestCleanSpool(t *testing.T) {
	st := newStore(t)
	sleeper := exec.Command("sleep", "60")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { sleeper.Process.Kill(); sleeper.Wait() }()
	dead, live := deadPID(t), sleeper.Process.Pid
	ms := time.Now().Add(-48 * time.Hour).UnixMilli()
	day2 := 48 * time.Hour

	gone := []string{
		spoolFile(t, st, fmt.Sprintf("%d-%d-aa.validate.stdout", ms, dead), day2),
		spoolFile(t, st, fmt.Sprintf("%d-%d-aa.validate.stderr", ms, dead), day2),
		spoolFile(t, st, fmt.Sprintf(".%d-%d-bb.step.json.tmp-99", ms, dead), day2),
	}
	kept := []string{
		spoolFile(t, st, fmt.Sprintf("%d-%d-cc.validate.stdout", ms, live), day2),      // writer alive
		spoolFile(t, st, fmt.Sprintf("%d-%d-dd.validate.stdout", ms, dead), time.Hour), // too young
		spoolFile(t, st, "notes.txt", day2),                                            // not a spool entry
		spoolFile(t, st, fmt.Sprintf("%d-%d-ee.validate.stdout", ms, dead), day2),      // its child's group lives
	}
	meta, _ := json.Marshal(store.SpoolMeta{PID: dead, PGID: unix.Getpgrp()})
	kept = append(kept, spoolFile(t, st, fmt.Sprintf("%d-%d-ee.validate.json", ms, dead), day2))
	os.WriteFile(kept[len(kept)-1], meta, 0o600)
	os.Chtimes(kept[len(kept)-1], time.Now().Add(-day2), time.Now().Add(-day2))

	res, err := store.CleanSpool(st, store.SpoolSweep{Now: time.Now(), DryRun: true})
	if err != nil || res.Files != len(gone) {
		t.Fatalf("dry run: %+v %v", res, err)
	}
	for _, p := range gone {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("dry run removed %s", p)
		}
	}
	res, err = store.CleanSpool(st, store.SpoolSweep{Now: time.Now()})
	if err != nil || res.Files != len(gone) || res.Bytes != int64(13*len(gone)) {
		t.Fatalf("clean: %+v %v", res, err)
	}
	for _, p := range gone {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s not removed", filepath.Base(p))
		}
	}
	for _, p := range kept {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s removed", filepath.Base(p))
		}
	}
}

// A step's base objects are a directory beside its streams; it goes with
// them once the writer is gone. Other directories are left alone.
func TestCleanSpoolBaseObjects(t *testing.T) {
	st := newStore(t)
	ms := time.Now().Add(-48 * time.Hour).UnixMilli()
	old := time.Now().Add(-48 * time.Hour)
	dead := deadPID(t)
	objects := filepath.Join(st.SpoolDir(), fmt.Sprintf("%d-%d-ff.step.git", ms, dead))
	other := filepath.Join(st.SpoolDir(), fmt.Sprintf("%d-%d-ff.step.dir", ms, dead))
	for _, d := range []string{filepath.Join(objects, "objects", "ab"), other} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(objects, "objects", "ab", "cdef"), []byte("blob"), 0o400)
	for _, d := range []string{objects, other} {
		os.Chtimes(d, old, old)
	}
	if _, err := store.CleanSpool(st, store.SpoolSweep{Now: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(objects); err == nil {
		t.Error("the base objects of a gone step were left in the spool")
	}
	if _, err := os.Stat(other); err != nil {
		t.Error("a directory that is no spool entry was removed")
	}
}

// A spool meta with the writer's start time: a live process now holding
// the same pid (reused) is not the writer.
func TestCleanSpoolReusedPID(t *testing.T) {
	st := newStore(t)
	ms := time.Now().Add(-48 * time.Hour).UnixMilli()
	sleeper := exec.Command("sleep", "60")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { sleeper.Process.Kill(); sleeper.Wait() }()
	pid := sleeper.Process.Pid
	start, err := procid.Start(pid)
	if err != nil {
		t.Skip("no process start times here")
	}
	day2 := 48 * time.Hour
	reused := spoolFile(t, st, fmt.Sprintf("%d-%d-aa.validate.stdout", ms, pid), day2)
	meta, _ := json.Marshal(store.SpoolMeta{PID: pid, PIDStart: start + 1})
	metaPath := spoolFile(t, st, fmt.Sprintf("%d-%d-aa.validate.json", ms, pid), day2)
	os.WriteFile(metaPath, meta, 0o600)
	os.Chtimes(metaPath, time.Now().Add(-day2), time.Now().Add(-day2))
	live := spoolFile(t, st, fmt.Sprintf("%d-%d-bb.validate.stdout", ms, pid), day2)
	meta, _ = json.Marshal(store.SpoolMeta{PID: pid, PIDStart: start})
	metaPath = spoolFile(t, st, fmt.Sprintf("%d-%d-bb.validate.json", ms, pid), day2)
	os.WriteFile(metaPath, meta, 0o600)
	os.Chtimes(metaPath, time.Now().Add(-day2), time.Now().Add(-day2))

	if _, err := store.CleanSpool(st, store.SpoolSweep{Now: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(reused); err == nil {
		t.Error("kept for a pid that now names another process")
	}
	if _, err := os.Stat(live); err != nil {
		t.Error("removed while its writer (same pid, same start) lives")
	}
}

// A FIFO planted as an old entry's meta (the spool is in the agent's
// reach) is no meta: the age sweep never waits on it, as the driver's
// clean-up of a crashed run never did (one sweep serves both now).
func TestCleanSpoolPlantedFIFO(t *testing.T) {
	st := newStore(t)
	ms := time.Now().Add(-48 * time.Hour).UnixMilli()
	stream := spoolFile(t, st, fmt.Sprintf("%d-%d-ff.step.stdout", ms, deadPID(t)), 48*time.Hour)
	fifo := strings.TrimSuffix(stream, ".stdout") + ".json"
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-48 * time.Hour)
	os.Chtimes(fifo, old, old)
	done := make(chan error, 1)
	go func() { _, err := store.CleanSpool(st, store.SpoolSweep{Now: time.Now()}); done <- err }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		if f, err := os.OpenFile(fifo, os.O_WRONLY|unix.O_NONBLOCK, 0); err == nil {
			f.Close() // releases the reader
		}
		t.Fatal("CleanSpool still reading a FIFO spool meta after 20 s")
	}
	if _, err := os.Stat(stream); err == nil {
		t.Error("the dead writer's stream was left")
	}
}

// A dead step's base objects (<entry>.step.git) are counted by the bytes
// of their files, as a run's are: the directory's own 4 KiB was reported
// freed for the megabytes of objects a dry run said would go, and went.
func TestCleanSpoolCountsObjectBytes(t *testing.T) {
	st := newStore(t)
	ms := time.Now().Add(-48 * time.Hour).UnixMilli()
	objects := filepath.Join(st.SpoolDir(), fmt.Sprintf("%d-%d-ab.step.git", ms, deadPID(t)))
	blob := filepath.Join(objects, "objects", "ab", strings.Repeat("c", 38))
	if err := os.MkdirAll(filepath.Dir(blob), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(blob, make([]byte, 100_000), 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-48 * time.Hour)
	os.Chtimes(objects, old, old)
	for _, dry := range []bool{true, false} {
		res, err := store.CleanSpool(st, store.SpoolSweep{Now: time.Now(), DryRun: dry})
		if err != nil || res.Files != 1 || res.Bytes != 100_000 {
			t.Errorf("dry run %v: %+v %v, want 1 entry of 100000 bytes", dry, res, err)
		}
	}
	if _, err := os.Lstat(objects); err == nil {
		t.Errorf("%s not removed", objects)
	}
}
