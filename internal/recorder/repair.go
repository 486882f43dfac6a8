package recorder

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
)

// repaired is a run as repair left it.
type repaired struct {
	run  *record.Run
	last *record.IterationLog // the last committed iteration, nil when none
	// lastAttempt is the last committed attempt's number, from the log:
	// run.json's count lags behind it when stale is set.
	lastAttempt int
	// stale is set when the derived files could not be brought up to date:
	// run.json then stays behind the log, so the next writer tries again.
	stale error
}

// repair mends what a killed writer left, under the append lock: torn tails
// and lines that are no commit set aside, folders without their log line
// removed, and derived files lagging behind the log brought up to date. A
// derived file that cannot be written (a full disk, a directory in its
// place) does not stop a commit: it is reported in stale.
func (r *Recorder) repair(id string) (*repaired, error) {
	if err := r.St.CheckRun(id); err != nil {
		return nil, err
	}
	for _, f := range []string{store.IterationsFile, store.AttemptsFile} {
		if torn, err := store.RepairTail(r.St.RunPath(id, f)); err != nil {
			return nil, err
		} else if torn {
			r.Log.Warn("set aside a torn last line left by a killed writer", "run", id, "file", f)
		}
	}
	run, err := r.St.ReadRun(id)
	if err != nil {
		return nil, err
	}
	r.dropUnmadeStatus(id, run)
	r.removeTemps(r.St.RunDir(id), r.St.RunPath(id, store.ContextDir))
	last, aside, err := r.St.LastIteration(id)
	if err != nil {
		return nil, err
	}
	if aside > 0 {
		r.Log.Warn("set aside last lines that are no commit (their iteration does not follow the one before)", "run", id, "file", store.IterationsFile, "lines", aside)
	}
	lastN := 0
	if last != nil {
		lastN = last.Iteration
	}
	lastA, aside, err := r.St.LastAttempt(id)
	if err != nil {
		return nil, err
	}
	if aside > 0 {
		r.Log.Warn("set aside last lines that are no commit (their attempt does not follow the one before)", "run", id, "file", store.AttemptsFile, "lines", aside)
	}
	if err := r.removeLeftovers(id, store.IterationsDir, lastN); err != nil {
		return nil, err
	}
	if err := r.removeLeftovers(id, store.AttemptsDir, lastA); err != nil {
		return nil, err
	}
	if lastN > 0 {
		r.dropCommittedSpool(r.St.IterationDir(id, lastN))
	}
	if lastA > 0 {
		r.dropCommittedSpool(r.St.AttemptDir(id, lastA))
	}
	st := &repaired{run: run, last: last, lastAttempt: lastA}
	if run.Iteration != lastN || run.Attempts != lastA {
		if err := r.catchUp(run); err != nil {
			st.stale = fmt.Errorf("bring derived files up to date: %w", err)
			r.Log.Warn("derived files could not be brought up to date; the next writer tries again", "run", id, "err", err)
			// catchUp may have changed run half-way: start again from the file
			if st.run, err = r.St.ReadRun(id); err != nil {
				return nil, err
			}
		}
	}
	return st, nil
}

// removeLeftovers deletes the folders (of iterations or attempts) past the
// last committed line, except an iteration's that events.jsonl says was
// recorded (its event follows the commit): then the log lost lines loopkit
// wrote, which a killed writer cannot do (the agent can), and it is kept.
func (r *Recorder) removeLeftovers(id, sub string, lastN int) error {
	entries, err := os.ReadDir(r.St.RunPath(id, sub))
	if err != nil {
		return nil // no folders yet
	}
	var recorded map[int]bool // read only when a folder is past the log: rare
	for _, e := range entries {
		if n, ok := parseIterDir(e.Name()); ok && n > lastN {
			if sub == store.IterationsDir && recorded == nil {
				if recorded, _, err = r.recordedEvents(id); err != nil {
					return err
				}
			}
			if recorded[n] {
				r.Log.Warn("kept a folder whose line iterations.jsonl lost (not a killed writer's doing: the agent can write the store)",
					"run", id, "folder", sub+"/"+e.Name())
				continue
			}
			r.Log.Warn("removing a folder without its log line", "run", id, "folder", sub+"/"+e.Name())
			if err := os.RemoveAll(r.St.RunPath(id, sub, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// catchUp recomputes the run's aggregates from the log and appends the
// events and report rows a killed writer did not get to.
func (r *Recorder) catchUp(run *record.Run) error {
	id := run.RunID
	for _, f := range []string{store.EventsFile, store.ReportFile} {
		if _, err := store.RepairTail(r.St.RunPath(id, f)); err != nil {
			return err
		}
	}
	evSeen, finished, err := r.recordedEvents(id)
	if err != nil {
		return err
	}
	rowSeen, err := r.reportedRows(id)
	if err != nil {
		return err
	}
	r.Log.Warn("derived files lag behind the log; bringing them up to date", "run", id, "recorded", run.Iteration)
	// what the budgets read, as loopkit last kept it (store.ReadRun)
	spent := run.Totals()
	resetTotals(run)
	var last *record.IterationLog
	// an iteration's events come after its attempts' (its review's, which
	// the same writer commits first)
	var owed []func() error
	err = store.ScanFile(r.St.RunPath(id, store.IterationsFile), func(lineNo int, line []byte) error {
		it := &record.IterationLog{}
		if err := json.Unmarshal(line, it); err != nil {
			return fmt.Errorf("%s line %d: %w", store.IterationsFile, lineNo, err)
		}
		if err := store.OutOfSequence(store.IterationsFile, lineNo, it.Iteration); err != nil {
			return err
		}
		if !evSeen[it.Iteration] {
			owed = append(owed, func() error {
				if err := r.finishStep(id, it.Agent, r.St.IterationDir(id, it.Iteration), it.CreatedAt, finished); err != nil {
					return err
				}
				n, code := it.Iteration, it.ExitCode
				return r.St.AppendEvent(record.Event{TS: it.CreatedAt, RunID: id, Type: record.EventIterationRecorded, Iteration: &n, ExitCode: &code})
			})
		}
		if !rowSeen[it.Iteration] {
			if err := r.appendReport(id, r.iterationRow(id, it)); err != nil {
				return err
			}
		}
		addToRun(run, it)
		if it.ValidationCommand != "" {
			run.ValidationCommand = it.ValidationCommand
		}
		run.UpdatedAt = max(run.UpdatedAt, it.UpdatedAt)
		last = it
		return nil
	})
	if err != nil {
		return err
	}
	err = store.ScanFile(r.St.RunPath(id, store.AttemptsFile), func(lineNo int, line []byte) error {
		a := &record.Attempt{}
		if err := json.Unmarshal(line, a); err != nil {
			return fmt.Errorf("%s line %d: %w", store.AttemptsFile, lineNo, err)
		}
		if err := r.finishStep(id, a.Agent, r.St.AttemptDir(id, a.Attempt), a.CreatedAt, finished); err != nil {
			return err
		}
		addAttemptToRun(run, a)
		run.UpdatedAt = max(run.UpdatedAt, a.CreatedAt)
		return nil
	})
	if err != nil {
		return err
	}
	for _, f := range owed {
		if err := f(); err != nil {
			return err
		}
	}
	run.RaiseTotals(spent)
	if last != nil {
		if err := r.writeManifest(run, last); err != nil {
			return err
		}
		r.saveProgress(run)
	}
	return r.St.WriteRun(run)
}

// recordedEvents lists the iterations events.jsonl has recorded, and the
// steps it has finished.
func (r *Recorder) recordedEvents(id string) (map[int]bool, map[string]bool, error) {
	seen, finished := map[int]bool{}, map[string]bool{}
	err := store.ScanFile(r.St.RunPath(id, store.EventsFile), func(_ int, line []byte) error {
		var e record.Event
		if json.Unmarshal(line, &e) != nil {
			return nil
		}
		switch {
		case e.Type == record.EventIterationRecorded && e.Iteration != nil:
			seen[*e.Iteration] = true
		case e.Type == record.EventStepFinished:
			finished[e.StepID] = true
		}
		return nil
	})
	return seen, finished, err
}

func (r *Recorder) reportedRows(id string) (map[int]bool, error) {
	seen := map[int]bool{}
	err := store.ScanFile(r.St.RunPath(id, store.ReportFile), func(_ int, line []byte) error {
		f := strings.SplitN(string(line), "\t", 4)
		if len(f) >= 3 && f[1] == "ITERATION" {
			if n, err := strconv.Atoi(f[2]); err == nil {
				seen[n] = true
			}
		}
		return nil
	})
	return seen, err
}

// dropCommittedSpool removes spool entries that are hard links of files in
// the last committed iteration folder: a writer killed between its commit
// and its cleanup left them. Every writer repairs first, so checking the
// last iteration covers that window.
func (r *Recorder) dropCommittedSpool(dir string) {
	committed := map[[2]uint64]bool{}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if key, links, ok := inode(filepath.Join(dir, e.Name())); ok && links > 1 {
			committed[key] = true
		}
	}
	if len(committed) == 0 {
		return
	}
	spool, _ := os.ReadDir(r.St.SpoolDir())
	for _, e := range spool {
		p := filepath.Join(r.St.SpoolDir(), e.Name())
		if key, _, ok := inode(p); ok && committed[key] {
			r.Log.Warn("removing a spool entry already recorded by a killed writer", "file", e.Name())
			os.Remove(p)
			os.Remove(strings.TrimSuffix(p, filepath.Ext(p)) + ".json")
		}
	}
}

func inode(path string) (key [2]uint64, links uint64, ok bool) {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return key, 0, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return key, 0, false
	}
	return [2]uint64{uint64(st.Dev), st.Ino}, uint64(st.Nlink), true
}

// removeTemps deletes temporary files of atomic writes a killed writer left
// (".<name>.tmp-*", and pointLatest's ".context_latest.tmp" link): under
// the append lock no other writer is mid-write.
func (r *Recorder) removeTemps(dirs ...string) {
	for _, dir := range dirs {
		temps, _ := filepath.Glob(filepath.Join(dir, ".*.tmp-*"))
		temps = append(temps, filepath.Join(dir, latestTemp))
		for _, t := range temps {
			os.Remove(t)
		}
	}
}

// dropUnmadeStatus cuts back a status event, and its report row, that
// stands without its run.json: the writer was killed after appending them
// and before the rename (Update). As when the disk refuses run.json, the
// change was not made: its hooks never fired, and a retry makes it whole.
// Only Update's events carry a status, and every later writer repairs
// first, so such an event is the log's last line.
func (r *Recorder) dropUnmadeStatus(id string, run *record.Run) {
	events := r.St.RunPath(id, store.EventsFile)
	var ev record.Event
	off := int64(-1)
	if _, err := store.ReadBackward(events, func(o int64, line []byte) (bool, error) {
		if json.Unmarshal(line, &ev) == nil {
			off = o
		}
		return false, nil
	}); err != nil || off < 0 || ev.Status == "" || ev.Status == run.Status {
		return // a log that cannot be read stops no writer: it never did
	}
	// the row first: a kill between the two cuts leaves the event, which
	// the next repair finds again
	report, row := r.St.RunPath(id, store.ReportFile), int64(-1)
	store.ReadBackward(report, func(o int64, line []byte) (bool, error) {
		if bytes.Equal(line, store.ReportLine(store.EventRow(ev))) {
			row = o
		}
		return false, nil
	})
	var err error
	if row >= 0 {
		err = store.CutBack(report, row)
	}
	if err == nil {
		err = store.CutBack(events, off)
	}
	if err != nil {
		r.Log.Warn(fmt.Sprintf("run %s: %s stands without its run.json (a killed writer's) and could not be cut back", id, ev.Type), "err", err)
		return
	}
	r.Log.Warn(fmt.Sprintf("run %s: removed %s, whose run.json a killed writer never wrote (the run is still %s)", id, ev.Type, run.Status))
}
