package recorder

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/loopkit/loopkit/internal/agent"
	"github.com/loopkit/loopkit/internal/gitrun"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/safefile"
	"github.com/loopkit/loopkit/internal/store"
)

// applyIteration brings events, report, manifest and run.json up to date
// with a just-committed iteration.
func (r *Recorder) applyIteration(run *record.Run, it *record.IterationLog, in *record.Input) error {
	if err := r.derive(run, it); err != nil {
		return err
	}
	addToRun(run, it)
	if it.ValidationCommand != "" {
		run.ValidationCommand = it.ValidationCommand
	}
	run.UpdatedAt = it.UpdatedAt
	if err := r.sayNeutralised(run); err != nil {
		return err
	}
	r.saveProgress(run)
	return r.St.WriteRun(run)
}

// sayNeutralised says once, in an event and on stderr, that the run's
// repository config changed and which of its commands git no longer runs.
func (r *Recorder) sayNeutralised(run *record.Run) error {
	keys := gitrun.Neutralised()
	if len(keys) == 0 || len(run.GitConfigNeutralised) > 0 {
		return nil
	}
	run.GitConfigNeutralised = keys
	msg := fmt.Sprintf("the repository's git config changed during the run: loopkit's git no longer runs what it names (%s)",
		strings.Join(keys, ", "))
	if !gitrun.Recorded() {
		msg = fmt.Sprintf("the repository's git config was not recorded as the run started: loopkit's git runs none of what it names (%s)",
			strings.Join(keys, ", "))
	}
	if r.Log != nil {
		r.Log.Warn(msg)
	}
	it := run.Iteration
	return r.AppendEvent(record.Event{TS: r.nowMs(), RunID: run.RunID, Type: record.EventGitConfigChanged, Iteration: &it, Message: msg})
}

// derive appends the iteration's event and report row and rewrites the manifest.
func (r *Recorder) derive(run *record.Run, it *record.IterationLog) error {
	n, code := it.Iteration, it.ExitCode
	ev := record.Event{TS: it.CreatedAt, RunID: run.RunID, Type: record.EventIterationRecorded, Iteration: &n, ExitCode: &code}
	// the step ends (its output has its place) before its iteration is
	// recorded: its event and row go first, in the same write as the
	// iteration's (one fsync a file, not two). A crash leaves the first, both
	// or a torn tail, as two appends could; a repair appends what is missing.
	evs, rows := []record.Event{ev}, [][]string(nil)
	step, err := r.stepFinished(run.RunID, it.Agent, r.St.IterationDir(run.RunID, n), it.CreatedAt, nil)
	if err != nil {
		return err
	}
	if step != nil {
		evs, rows = []record.Event{*step, ev}, [][]string{store.EventRow(*step)}
	}
	// Three files, each fsynced: written at once, the file system commits
	// them together. Their order does not matter to a repair, which compares
	// the log with run.json, written after them.
	errs := make(chan error, 3)
	go func() { errs <- r.St.AppendEvents(evs...) }()
	go func() {
		rows = append(rows, r.iterationRow(run.RunID, it))
		errs <- store.AppendReport(r.St.RunPath(run.RunID, store.ReportFile), rows...)
	}()
	go func() { errs <- r.writeManifest(run, it) }()
	var first error
	for range 3 {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// addToRun adds one iteration to the run's aggregates. Unknown token counts
// add nothing; the cost stays null until some iteration knows its cost.
func addToRun(run *record.Run, it *record.IterationLog) {
	run.Iteration = it.Iteration
	if it.Status == record.StatusPass {
		run.Passed++
		run.ArtifactStatus = "complete"
		run.LastError = nil
	} else {
		run.Failed++
		msg := fmt.Sprintf("iteration %d: validation exited %d", it.Iteration, it.ExitCode)
		if it.Error != nil {
			msg = fmt.Sprintf("iteration %d: %s", it.Iteration, *it.Error)
		}
		run.LastError = &msg
	}
	addUsage(run, it.LLMInputTokens, it.LLMOutputTokens, it.LLMCacheReadTokens, it.LLMCacheCreationTokens, it.CostUSD)
	run.TotalDurationMs += max(it.DurationMs, 0)
	if it.Agent != nil {
		run.TotalDurationMs += max(it.Agent.DurationMs, 0)
	}
}

// addUsage adds token counts and a cost to the run's totals. Unknown counts
// add nothing; the cost stays null until some call knows its cost.
func addUsage(run *record.Run, in, out, cacheRead, cacheCreation *int64, cost *float64) {
	// A total stays null until some agent reports a count: 0 would claim
	// an agent ran and used nothing.
	// A line the agent appended to a log can hold any figure: a negative
	// one (or a NaN or infinite cost) would lower a total a budget reads.
	add := agent.AddCountTo
	add(&run.TotalInputTokens, in)
	add(&run.TotalOutputTokens, out)
	add(&run.TotalCacheReadTokens, cacheRead)
	add(&run.TotalCacheCreationTokens, cacheCreation)
	record.AddCostTo(&run.TotalCostUSD, cost)
}

func resetTotals(run *record.Run) {
	run.Iteration, run.Attempts, run.Passed, run.Failed = 0, 0, 0, 0
	run.SetTotals(record.Totals{})
	run.LastError = nil
}

func (r *Recorder) appendReport(id string, fields []string) error {
	return store.AppendReport(r.St.RunPath(id, store.ReportFile), fields)
}

func (r *Recorder) iterationRow(id string, it *record.IterationLog) []string {
	dir := r.St.IterationDir(id, it.Iteration)
	lines := countLines(filepath.Join(dir, ValidationStdout)) + countLines(filepath.Join(dir, ValidationStderr))
	msg := it.Status
	if it.Error != nil {
		msg += ": " + *it.Error
	}
	if it.PlanAdvancedOnFailure {
		msg += " (plan advanced on failure)"
	}
	i := strconv.Itoa
	opt := func(p *int) string {
		if p == nil {
			return ""
		}
		return i(*p)
	}
	return []string{strconv.FormatInt(it.CreatedAt, 10), "ITERATION", i(it.Iteration),
		strconv.FormatInt(it.DurationMs, 10), i(it.ExitCode),
		strconv.FormatInt(it.StdoutBytes+it.StderrBytes, 10), strconv.FormatInt(lines, 10), dir, msg,
		opt(it.TasksDone), opt(it.TasksTotal)}
}

func countLines(path string) int64 {
	f, err := safefile.Open(path) // under the append lock: a FIFO must not block it
	if err != nil {
		return 0
	}
	defer f.Close()
	// a buffer the file's size (most outputs are small), at most 256 KiB:
	// a fixed 256 KiB, twice an iteration, was 1% of the holder's CPU
	size := int64(256 << 10)
	if fi, err := f.Stat(); err == nil {
		size = min(max(fi.Size()+1, 512), size)
	}
	buf := make([]byte, size)
	var n int64
	for {
		k, err := f.Read(buf)
		n += int64(bytes.Count(buf[:k], []byte{'\n'}))
		if err != nil {
			return n
		}
	}
}
