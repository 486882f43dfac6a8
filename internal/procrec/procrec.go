// Package procrec is loopkit's own record of the processes and process
// groups it started, kept outside every workspace (the runtime directory,
// internal/userdir): a pid read from run.json or a spool meta is only a
// candidate, which the agent could have written; loopkit signals it only
// when this record has it and its start time still matches (procid).
package procrec

import (
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/loopkit/loopkit/internal/procid"
	"github.com/loopkit/loopkit/internal/userdir"
)

// Kinds of processes.
const (
	Driver = "driver" // a run's driver (the pid in run.json)
	Group  = "group"  // an agent's or a validation's process group
)

// dir is the record's directory, 0700, made on demand.
func dir() (string, error) { return userdir.RuntimeSub("procs") }

// dirs are dir and the records of this user's other runtime directories
// (userdir.OtherRuntimes), read only: a driver started where
// XDG_RUNTIME_DIR differs from the reader's is still proven by its record.
// Before, cancel from cron named a live driver "no driver loopkit started".
func dirs() []string {
	var out []string
	// a reader makes no directory: none holds no record
	if d, err := userdir.RuntimeSubPath("procs"); err == nil {
		out = append(out, d)
	}
	for _, r := range userdir.OtherRuntimes() {
		d := filepath.Join(r, "procs")
		if fi, err := os.Lstat(d); err == nil && fi.IsDir() && fi.Mode().Perm()&0o077 == 0 {
			out = append(out, d)
		}
	}
	return out
}

func name(pid int, start uint64) string {
	return strconv.Itoa(pid) + "-" + strconv.FormatUint(start, 10)
}

// Add records that loopkit started process (or group leader) pid, whose
// procid start time is start, as kind for the run at runDir. Records of
// processes and groups gone are pruned on the way.
func Add(pid int, start uint64, kind, runDir string) error {
	if !recordable(pid, kind) || start == 0 {
		return fmt.Errorf("pid %d start %d: not a process to record", pid, start)
	}
	d, err := dir()
	if err != nil {
		return err
	}
	prune(d)
	f, err := os.OpenFile(filepath.Join(d, name(pid, start)), os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return err
	}
	_, err = f.WriteString(kind + "\n" + runDir + "\n" + procid.Boot() + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Remove drops the record of pid (its process has ended).
func Remove(pid int, start uint64) {
	if d, err := userdir.RuntimeSubPath("procs"); err == nil {
		os.Remove(filepath.Join(d, name(pid, start)))
	}
}

// Has reports whether loopkit recorded pid with start time start as kind
// for the run at runDir ("" any run).
func Has(pid int, start uint64, kind, runDir string) bool {
	if !recordable(pid, kind) || start == 0 {
		return false
	}
	for _, d := range dirs() {
		k, r, ok := read(filepath.Join(d, name(pid, start)))
		if ok && k == kind && (runDir == "" || r == runDir) {
			return true
		}
	}
	return false
}

// Drivers are the live drivers recorded for the run at runDir: pid and
// start time, each still that process.
func Drivers(runDir string) map[int]uint64 {
	out := map[int]uint64{}
	for pid, start := range recorded(Driver, runDir, procid.Alive) {
		out[pid] = start
	}
	return out
}

// Groups are the process groups recorded for the run at runDir that are
// still the groups recorded: their leader is the process recorded, or gone
// while the group lives on (a group's id is not given to a new process
// while the group exists). What a spool meta names is only a candidate;
// this is what a run left behind, whatever the agent wrote.
func Groups(runDir string) []int {
	var out []int
	for pgid := range recorded(Group, runDir, groupAsRecorded) {
		out = append(out, pgid)
	}
	return out
}

func groupAsRecorded(pgid int, start uint64) bool {
	if !procid.GroupExists(pgid) {
		return false
	}
	now, err := procid.Start(pgid)
	return err != nil || now == start // another start: the pid is another process
}

// recorded yields the records of kind for the run at runDir whose pid and
// start time pass live.
func recorded(kind, runDir string, live func(pid int, start uint64) bool) iter.Seq2[int, uint64] {
	return func(yield func(int, uint64) bool) {
		seen := map[int]bool{}
		for _, d := range dirs() {
			for pid, start := range recordedIn(d, kind, runDir, live) {
				if !seen[pid] {
					seen[pid] = true
					if !yield(pid, start) {
						return
					}
				}
			}
		}
	}
}

// recordedIn is recorded of the records in directory d.
func recordedIn(d, kind, runDir string, live func(pid int, start uint64) bool) iter.Seq2[int, uint64] {
	return func(yield func(int, uint64) bool) {
		for pid, rec := range recordsIn(d, kind, live) {
			if rec.runDir == runDir && !yield(pid, rec.start) {
				return
			}
		}
	}
}

// record is what a process record says of its process, beside its pid.
type record struct {
	start  uint64
	runDir string
}

// recordsIn yields the records of kind in directory d, of any run, whose
// pid and start time pass live.
func recordsIn(d, kind string, live func(pid int, start uint64) bool) iter.Seq2[int, record] {
	return func(yield func(int, record) bool) {
		ents, _ := os.ReadDir(d)
		for _, e := range ents {
			pid, start, ok := parse(e.Name())
			if !ok || !live(pid, start) {
				continue
			}
			if k, r, ok := read(filepath.Join(d, e.Name())); ok && k == kind && recordable(pid, k) && !yield(pid, record{start, r}) {
				return
			}
		}
	}
}

// read is a record's kind and run directory: a regular file of this
// user's, never followed, written in this boot. Without XDG_RUNTIME_DIR
// the record outlives a reboot, and a process of the new boot can have
// the pid and start tick (ticks since boot) of one recorded before it: a
// record naming another boot names no process. One without a boot line
// (an older loopkit's) is taken as this boot's.
func read(path string) (kind, runDir string, ok bool) {
	kind, runDir, boot, ok := readAny(path)
	return kind, runDir, ok && thisBoot(boot)
}

func thisBoot(boot string) bool { return boot == "" || boot == procid.Boot() }

// readAny is a record's kind, run directory and boot ("" when it names none).
func readAny(path string) (kind, runDir, boot string, ok bool) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", "", "", false
	}
	defer f.Close()
	fi, err := f.Stat()
	st, isStat := fi.Sys().(*syscall.Stat_t)
	if err != nil || !fi.Mode().IsRegular() || !isStat || int(st.Uid) != os.Getuid() || fi.Size() > 4096 {
		return "", "", "", false
	}
	buf := make([]byte, fi.Size())
	n, _ := f.Read(buf)
	lines := strings.Split(string(buf[:n]), "\n")
	if len(lines) < 2 {
		return "", "", "", false
	}
	if len(lines) > 2 {
		boot = lines[2]
	}
	return lines[0], lines[1], boot, true
}

func parse(n string) (pid int, start uint64, ok bool) {
	a, b, found := strings.Cut(n, "-")
	if !found {
		return 0, 0, false
	}
	pid, err1 := strconv.Atoi(a)
	start, err2 := strconv.ParseUint(b, 10, 64)
	return pid, start, err1 == nil && err2 == nil && pid > 0
}

// recordable: any process but pid 1, which only a driver may be (the first
// process of a container); never as a group, whose signal would be kill(-1).
func recordable(pid int, kind string) bool {
	return pid > 1 || pid == 1 && kind == Driver
}

// prune removes the records of processes gone whose group is gone too (a
// group outlives its leader, and stays signallable until it is empty).
func prune(d string) {
	ents, _ := os.ReadDir(d)
	for _, e := range ents {
		pid, start, ok := parse(e.Name())
		if !ok {
			continue
		}
		if _, _, boot, ok := readAny(filepath.Join(d, e.Name())); ok && !thisBoot(boot) {
			os.Remove(filepath.Join(d, e.Name()))
			continue
		}
		if procid.Alive(pid, start) {
			continue
		}
		// A start time that differs: the pid is another process now. The
		// same one is the recorded process, dead but not yet reaped (a
		// zombie): its group may live on, as below.
		if now, err := procid.Start(pid); err == nil && now != start {
			os.Remove(filepath.Join(d, e.Name()))
			continue
		}
		if pid > 1 && syscall.Kill(-pid, 0) == syscall.ESRCH {
			os.Remove(filepath.Join(d, e.Name()))
		}
	}
}
