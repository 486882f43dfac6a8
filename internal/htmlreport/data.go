// Package htmlreport renders a run as one self-contained HTML page to
// share: summary, timeline, charts, and each iteration's failing tests,
// diff, agent message, tool calls and validation output. Everything is
// inline (styles, SVG charts, one small script for printing) and escaped by
// html/template, so the page opens offline and a run's output cannot run
// code in it.
package htmlreport

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"unicode/utf8"

	"github.com/loopkit/loopkit/internal/failure"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/safefile"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/view"
)

// Limits of what one iteration shows, so that a 100-iteration run stays
// well under 2 MB; each cut says where the whole text is.
const (
	MaxOutputChars = 4000
	MaxStderrChars = 1500
	MaxDiffChars   = 6000
	// MaxDetailed is how many iterations get a detailed section (the last
	// ones); the charts and the timeline show every iteration.
	MaxDetailed = 200
)

// text is a shown part of a longer text and the note saying what was left out.
type text struct {
	Text string
	Note string
}

type iteration struct {
	N          int
	Status     string // pass, fail, error
	ExitCode   int
	Command    string
	DurationMs int64
	In, Out    int64
	Cost       float64
	HasCost    bool
	// AttemptCost is what the paid calls filed under it that are not
	// iterations cost (its review, a rate-limited try before it): the
	// running total counts them, as the run's total does.
	AttemptCost float64
	CostSource  string // reported, estimated, unknown; "" in older records
	Failures    []record.Failure
	Files       []string
	Error       string
	Agent       string
	Phase       string
	ToolCalls   []record.ToolCall
	Stdout      text
	Stderr      text
	Diff        text
	HasDiff     bool
	Detailed    bool
}

type page struct {
	Run        *record.Run
	Status     string
	Iterations []*iteration
	Signals    []view.Signal
	// SignalsSkipped are the earlier signals the page leaves out: it
	// keeps the newest view.MaxSignals.
	SignalsSkipped int
	Charts         charts
	Skipped        int // iterations without a detailed section
	Generated      string
	Settings       [][2]string
	// Attempts totals the paid calls that are not iterations ("" when none).
	Attempts string
}

// load reads the run: run.json, every iteration (one line at a time, only
// the last MaxDetailed keep their texts) and the watchdog's newest events.
func load(st *store.Store, id string) (*page, error) {
	ri, err := view.LoadRun(st, id)
	if err != nil {
		return nil, err
	}
	p := &page{Run: ri.Run, Status: ri.StatusMark()}
	last := 0
	if lines, err := store.TailLines(st.RunPath(id, store.IterationsFile), 1); err == nil && len(lines) == 1 {
		last = view.Iteration(lines[0])
	}
	err = store.ScanFile(st.RunPath(id, store.IterationsFile), func(lineNo int, line []byte) error {
		it := &record.IterationLog{}
		if err := json.Unmarshal(line, it); err != nil {
			return fmt.Errorf("%s line %d: %w", store.IterationsFile, lineNo, err)
		}
		if err := store.OutOfSequence(store.IterationsFile, lineNo, it.Iteration); err != nil {
			return err
		}
		p.Iterations = append(p.Iterations, newIteration(st, id, it, it.Iteration > last-MaxDetailed))
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, it := range p.Iterations {
		if !it.Detailed {
			p.Skipped++
		}
	}
	sigs := view.SignalLog{Keep: view.MaxSignals}
	_ = sigs.Read(st, id) // the page is still worth having without them
	p.Signals, p.SignalsSkipped = sigs.Last, sigs.Total-len(sigs.Last)
	if atts, err := view.LoadAttempts(st, id); err == nil && len(atts) > 0 {
		p.Attempts = view.AttemptsTotal(atts)
		fileAttempts(p.Iterations, atts)
	}
	for k, v := range ri.Run.Settings.Map() {
		p.Settings = append(p.Settings, [2]string{k, v})
	}
	sortPairs(p.Settings)
	p.Charts = makeCharts(p.Iterations)
	return p, nil
}

// fileAttempts adds each attempt's cost to the iteration it is filed
// under (view.AttemptsByIteration); those after the last iteration to the
// last, so the running total ends at the run's.
func fileAttempts(its []*iteration, atts []record.Attempt) {
	if len(its) == 0 {
		return
	}
	at := make(map[int]*iteration, len(its))
	for _, it := range its {
		at[it.N] = it
	}
	for n, as := range view.AttemptsByIteration(atts) {
		it := at[n]
		if it == nil || n > its[len(its)-1].N {
			it = its[len(its)-1]
		}
		for _, a := range as {
			if c, ok := record.CountedCost(a.CostUSD); ok { // as the run's totals take it
				it.AttemptCost = record.AddCost(it.AttemptCost, c)
			}
		}
	}
}

func newIteration(st *store.Store, id string, it *record.IterationLog, detailed bool) *iteration {
	v := &iteration{N: it.Iteration, Status: it.Status, ExitCode: it.ExitCode, Command: it.ValidationCommand,
		DurationMs: it.DurationMs, Failures: it.Failures, Files: it.FilesChanged, Detailed: detailed}
	if it.LLMInputTokens != nil {
		v.In = *it.LLMInputTokens
	}
	if it.LLMOutputTokens != nil {
		v.Out = *it.LLMOutputTokens
	}
	if it.CostUSD != nil {
		v.Cost, v.HasCost = *it.CostUSD, true
	}
	if it.CostSource != nil {
		v.CostSource = *it.CostSource
	}
	if !detailed {
		return v
	}
	if it.Error != nil {
		v.Error = *it.Error
	}
	if it.Agent != nil {
		v.Agent, v.Phase = failure.Strip(it.Agent.FinalMessage), it.Agent.Phase
	}
	v.ToolCalls = it.ToolCalls
	dir := st.IterationDir(id, it.Iteration)
	v.Stdout = tail(failure.Strip(it.Stdout), MaxOutputChars, it.StdoutBytes, filepath.Join(dir, store.ValidationStdout))
	v.Stderr = tail(failure.Strip(it.Stderr), MaxStderrChars, it.StderrBytes, filepath.Join(dir, store.ValidationStderr))
	if patch, err := readHead(filepath.Join(dir, store.ChangesPatch), MaxDiffChars*4); err == nil {
		v.HasDiff = true
		v.Diff = head(patch.data, MaxDiffChars, patch.size, filepath.Join(dir, store.ChangesPatch))
	}
	return v
}

// tail keeps the end of an output (where test runners print what failed).
func tail(s string, limit int, size int64, path string) text {
	kept, cut := record.TailChars(s, limit)
	if !cut && int64(len(s)) >= size {
		return text{Text: s}
	}
	return text{Text: kept, Note: fmt.Sprintf("showing the last %d characters of %s; all of it: %s", utf8.RuneCountInString(kept), bytesOf(max(size, int64(len(s)))), path)}
}

// head keeps the start of a diff (file headers first).
func head(s string, limit int, size int64, path string) text {
	kept := record.HeadChars(s, limit)
	if kept == s && int64(len(s)) >= size {
		return text{Text: s}
	}
	return text{Text: kept, Note: fmt.Sprintf("showing the first %d characters of %s; all of it: %s", utf8.RuneCountInString(kept), bytesOf(size), path)}
}

func bytesOf(n int64) string {
	if n == 1 {
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", n)
}

type file struct {
	data string
	size int64
}

// readHead reads at most max bytes of a file and its size.
func readHead(path string, limit int64) (file, error) {
	f, err := safefile.Open(path)
	if err != nil {
		return file{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return file{}, fmt.Errorf("%s is not a regular file", path)
	}
	buf := make([]byte, min(fi.Size(), limit))
	n, _ := io.ReadFull(f, buf)
	return file{data: record.Text(buf[:n]), size: fi.Size()}, nil
}

func sortPairs(p [][2]string) {
	for i := 1; i < len(p); i++ {
		for j := i; j > 0 && p[j][0] < p[j-1][0]; j-- {
			p[j], p[j-1] = p[j-1], p[j]
		}
	}
}
