package procrec

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/loopkit/loopkit/internal/procid"
	"github.com/loopkit/loopkit/internal/userdir"
)

func TestRecord(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	pid := cmd.Process.Pid
	start, err := procid.Start(pid)
	if err != nil {
		t.Fatal(err)
	}
	if Has(pid, start, Driver, "/r") {
		t.Error("a process never recorded is had")
	}
	if err := Add(pid, start, Driver, "/r"); err != nil {
		t.Fatal(err)
	}
	if !Has(pid, start, Driver, "/r") || Has(pid, start+1, Driver, "/r") || Has(pid, start, Group, "/r") || Has(pid, start, Driver, "/other") {
		t.Error("Has: want the exact pid, start, kind and run only")
	}
	if got := Drivers("/r"); got[pid] != start || len(got) != 1 {
		t.Errorf("Drivers = %v", got)
	}
	d, _ := dir()
	if fi, err := os.Stat(filepath.Dir(d)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("runtime dir mode: %v %v", fi.Mode(), err)
	}
	// a record of a process gone is pruned by the next Add
	os.WriteFile(filepath.Join(d, strconv.Itoa(pid)+"-1"), []byte("driver\n/r\n"), 0o600)
	Add(pid, start, Driver, "/r")
	if _, err := os.Stat(filepath.Join(d, strconv.Itoa(pid)+"-1")); err == nil {
		t.Error("a record of a reused pid was kept")
	}
	Remove(pid, start)
	if Has(pid, start, Driver, "/r") {
		t.Error("removed, still had")
	}
}

// Without XDG_RUNTIME_DIR the record is under the state directory, in a
// directory of this user's: a link planted there first is refused.
func TestRuntimeFallback(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", "")
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	d, err := userdir.Runtime()
	if err != nil || d != filepath.Join(state, "loopkit", "runtime") {
		t.Fatalf("Runtime = %q, %v", d, err)
	}
	os.Remove(d)
	os.Symlink(t.TempDir(), d)
	if _, err := userdir.Runtime(); err == nil {
		t.Error("a link in place of the runtime directory is accepted")
	}
}

// Groups lists the run's recorded groups that still exist as recorded: a
// group whose leader has died lives on; another kind, another run, or a
// record whose pid now starts at another time is not listed.
func TestGroups(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	cmd, pgid, start := leaderGone(t)
	cmd.Wait() // the leader is gone, its group is not
	d, _ := dir()
	os.WriteFile(filepath.Join(d, strconv.Itoa(pgid)+"-"+strconv.FormatUint(start, 10)+"x"), []byte("group\n/r\n"), 0o600)
	other := exec.Command("sleep", "30")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer other.Wait()
	defer other.Process.Kill()
	ostart, _ := procid.Start(other.Process.Pid)
	Add(other.Process.Pid, ostart, Driver, "/r")
	Add(other.Process.Pid, ostart+1, Group, "/r") // its pid, another start: reused
	if got := Groups("/r"); len(got) != 1 || got[0] != pgid {
		t.Errorf("Groups(/r) = %v, want [%d]", got, pgid)
	}
	if got := Groups("/other"); len(got) != 0 {
		t.Errorf("Groups(/other) = %v, want none", got)
	}
	syscall.Kill(-pgid, syscall.SIGKILL)
	for deadline := time.Now().Add(10 * time.Second); procid.GroupExists(pgid); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the killed group is still there after 10 s")
		}
	}
	if got := Groups("/r"); len(got) != 0 {
		t.Errorf("Groups(/r) after the group's end = %v", got)
	}
}

// A group whose leader has died but is not reaped yet (a zombie: its new
// parent, a subreaper, has not waited for it) while its children live on
// is still the group recorded: the next Add must not prune its record, or
// `loop resume` and `loop cancel` can no longer stop what a crash left.
func TestPruneKeepsZombieLeadersGroup(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	cmd, pgid, _ := leaderGone(t)
	defer cmd.Wait() // not before the end: a zombie until waited for
	for deadline := time.Now().Add(10 * time.Second); !procid.Zombie(pgid); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the leader never became a zombie")
		}
	}
	if err := Add(os.Getpid(), mustStart(t, os.Getpid()), Driver, "/other"); err != nil { // prunes
		t.Fatal(err)
	}
	if got := Groups("/r"); len(got) != 1 || got[0] != pgid {
		t.Errorf("Groups = %v, want [%d]: the record of a live group was pruned", got, pgid)
	}
}

func mustStart(t *testing.T, pid int) uint64 {
	t.Helper()
	s, err := procid.Start(pid)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// leaderGone starts a group whose leader exits at once, its member working
// on, records the group for the run "/r", and returns once the leader has
// exited (not waited for: the caller decides).
func leaderGone(t *testing.T) (*exec.Cmd, int, uint64) {
	t.Helper()
	cmd := exec.Command("sh", "-c", "sleep 30 >/dev/null & echo started")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pgid := cmd.Process.Pid
	t.Cleanup(func() { syscall.Kill(-pgid, syscall.SIGKILL) })
	start, err := procid.Start(pgid)
	if err != nil {
		t.Fatal(err)
	}
	if err := Add(pgid, start, Group, "/r"); err != nil {
		t.Fatal(err)
	}
	io.ReadAll(out)
	return cmd, pgid, start
}

// Pid 1 is recorded as a driver (the first process of a container may be
// scripts/loop), never as a group: signalling group 1 is kill(-1), every
// process the user may signal. A group record for it, planted, is not read.
func TestPidOneOnlyAsDriver(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	start, err := procid.Start(1)
	if err != nil {
		t.Skip("pid 1's start time cannot be read here")
	}
	if err := Add(1, start, Group, "/r"); err == nil {
		t.Fatal("pid 1 recorded as a group")
	}
	if err := Add(1, start, Driver, "/r"); err != nil {
		t.Fatalf("pid 1 as a driver: %v", err)
	}
	if !Has(1, start, Driver, "/r") || Drivers("/r")[1] != start {
		t.Fatalf("pid 1 recorded as driver not found: %v", Drivers("/r"))
	}
	d, _ := dir()
	if err := os.WriteFile(filepath.Join(d, name(1, start)), []byte(Group+"\n/r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if g := Groups("/r"); len(g) > 0 || Has(1, start, Group, "/r") {
		t.Fatalf("a planted group record for pid 1 is read: %v", g)
	}
}

// Without XDG_RUNTIME_DIR the record outlives a reboot, and a process of
// the new boot can have the pid and start tick a recorded driver had: a
// record of another boot names no process, so `loop cancel` never
// signals that process, nor does the run look driven. It is pruned.
func TestRecordOfAnotherBoot(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	if procid.Boot() == "" {
		t.Skip("no boot id here")
	}
	pid, start := sleeper(t)
	d, _ := dir()
	rec := filepath.Join(d, name(pid, start))
	os.WriteFile(rec, []byte("driver\n/r\n00000000-0000-0000-0000-000000000000\n"), 0o600)
	if got := Drivers("/r"); len(got) != 0 || Has(pid, start, Driver, "/r") {
		t.Errorf("Drivers = %v: a record of another boot names a process of this one", got)
	}
	Add(os.Getpid(), mustStart(t, os.Getpid()), Driver, "/other") // prunes
	if _, err := os.Stat(rec); err == nil {
		t.Error("a record of another boot was kept")
	}
	Add(pid, start, Driver, "/r")
	if got := Drivers("/r"); got[pid] != start {
		t.Errorf("Drivers = %v: this boot's record is not read", got)
	}
}

// sleeper starts a process that lives until the test ends: its pid and
// start time.
func sleeper(t *testing.T) (int, uint64) {
	t.Helper()
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd.Process.Pid, mustStart(t, cmd.Process.Pid)
}
