package procrec

import (
	"os"
	"path/filepath"
	"syscall"

	"github.com/loopkit/loopkit/internal/procid"
	"github.com/loopkit/loopkit/internal/userdir"
)

// OlderDrivers are the live drivers of the run at runDir that a loopkit
// older than this one recorded where it kept its runtime directory
// (userdir.OlderRuntime): a loop started before an upgrade, still
// running, is recorded there alone. $TMPDIR is the agent's to write, so
// what is read there only names a driver to the person; nothing is
// signalled or resumed on its word.
func OlderDrivers(runDir string) map[int]uint64 {
	out := map[int]uint64{}
	d := olderProcs()
	if d == "" {
		return out
	}
	for pid, start := range recordedIn(d, Driver, runDir, procid.Alive) {
		out[pid] = start
	}
	return out
}

// OlderDriverRuns are the run directories of every live driver an older
// loopkit recorded (OlderDrivers), with a pid of each: a version from
// before the work tree locks holds none, so a new run finds its loop in
// the tree only here.
func OlderDriverRuns() map[string]int {
	out := map[string]int{}
	d := olderProcs()
	if d == "" {
		return out
	}
	for pid, rec := range recordsIn(d, Driver, procid.Alive) {
		out[rec.runDir] = pid
	}
	return out
}

// olderProcs is the older runtime directory's procs, "" when there is
// none of this user's.
func olderProcs() string {
	d := userdir.OlderRuntime()
	if d == "" {
		return ""
	}
	d = filepath.Join(d, "procs")
	fi, err := os.Lstat(d)
	if err != nil || !fi.IsDir() {
		return "" // most users never ran an older loopkit
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != os.Getuid() {
		return ""
	}
	return d
}
