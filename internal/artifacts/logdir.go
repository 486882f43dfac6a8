package artifacts

import (
	"bytes"
	"fmt"
	"io"
	"time"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
)

// TailLines is how many lines iter-XX.tail.txt keeps.
const TailLines = 50

// Summary is summary.json of the bin/loop layout.
type Summary struct {
	RunID               string   `json:"run_id"`
	Name                string   `json:"name"`
	Status              string   `json:"status"`
	Iterations          int      `json:"iterations"`
	Passed              int      `json:"passed"`
	Failed              int      `json:"failed"`
	InputTokens         *int64   `json:"input_tokens"`
	OutputTokens        *int64   `json:"output_tokens"`
	CacheReadTokens     *int64   `json:"cache_read_tokens"`
	CacheCreationTokens *int64   `json:"cache_creation_tokens"`
	CostUSD             *float64 `json:"cost_usd"`
	StartedAt           string   `json:"started_at"`
	EndedAt             *string  `json:"ended_at"`
	LastError           *string  `json:"last_error"`
}

// IterName is the name of iteration n's log in the bin/loop layout:
// iter-01.log, iter-02.log, ... (two digits at least).
func IterName(n int, ext string) string { return fmt.Sprintf("iter-%02d%s", n, ext) }

// writeLogDir brings base/run-<id>/ up to date: prompt.txt (the first
// prompt), summary.json, report.tsv, iter-XX.log and iter-XX.tail.txt per
// iteration, prompt.rewrite.N.txt per watchdog rewrite. An iteration's
// files are written once: a committed iteration never changes, so only
// the iterations past the copy's progress are looked at.
func writeLogDir(base string, s *source) error {
	d, err := openDir(base, "run-"+s.run.RunID)
	if err != nil {
		return err
	}
	defer d.Close()
	p := d.progress(s)
	if p == (progress{}) {
		d.dropTemps()
	}
	its, from, err := s.iters.after(p.Iterations)
	if err != nil {
		return err
	}
	if from != p.Iterations {
		p = progress{} // another run's copy, or a log repaired: check it all
	}
	if (from.N > 0 || len(its) > 0) && !d.has("prompt.txt") {
		if p := s.iterFile(1, store.PromptFile); exists(p) {
			if err := d.write("prompt.txt", func(w io.Writer) error { _, err := copyFrom(w, p); return err }); err != nil {
				return err
			}
		}
	}
	for _, it := range its {
		if err := writeIteration(d, s, it.Iteration); err != nil {
			return err
		}
	}
	for ; ; p.Rewrites++ {
		name := fmt.Sprintf("prompt.rewrite.%d.txt", p.Rewrites+1)
		src := s.file(name)
		if !exists(src) {
			break
		}
		if d.has(name) {
			continue
		}
		if err := d.write(name, func(w io.Writer) error { _, err := copyFrom(w, src); return err }); err != nil {
			return err
		}
	}
	report := d.appendCopy
	if s.full { // a repair writes it whole: a copy edited inside is no prefix
		report = func(name, src string) error {
			return d.write(name, func(w io.Writer) error { _, err := copyFrom(w, src); return err })
		}
	}
	if err := report(store.ReportFile, s.file(store.ReportFile)); err != nil {
		return err
	}
	data, err := record.MarshalIndent(summary(s.run))
	if err != nil {
		return err
	}
	if err := d.writeBytes("summary.json", data); err != nil {
		return err
	}
	p.Iterations = s.iters.end
	return d.setProgress(p)
}

// writeIteration writes iter-XX.log (the agent's output) and its last 50
// lines, when the store kept the agent's output.
func writeIteration(d *dir, s *source, n int) error {
	logName, tailName := IterName(n, ".log"), IterName(n, ".tail.txt")
	if d.has(logName) && d.has(tailName) {
		return nil
	}
	stdout, stderr := s.iterFile(n, store.AgentStdout), s.iterFile(n, store.AgentStderr)
	if !exists(stdout) && !exists(stderr) {
		return nil // transcripts=drop: the store kept none
	}
	if err := d.write(logName, func(w io.Writer) error { _, err := agentOutput(w, stdout, stderr); return err }); err != nil {
		return err
	}
	end, err := d.readEnd(logName, tailBytes)
	if err != nil {
		return err
	}
	return d.writeBytes(tailName, tail(end, TailLines))
}

// tailBytes is how much of a log's end its tail is taken from.
const tailBytes = 1 << 20

// tail is the last n lines of data.
func tail(data []byte, n int) []byte {
	end := len(data)
	if end > 0 && data[end-1] == '\n' {
		end--
	}
	i := end
	for k := 0; k < n; k++ {
		j := bytes.LastIndexByte(data[:i], '\n')
		if j < 0 {
			return data
		}
		i = j
	}
	return data[i+1:]
}

func summary(run *record.Run) Summary {
	iso := func(ms int64) string { return time.UnixMilli(ms).UTC().Format(time.RFC3339) }
	s := Summary{
		RunID: run.RunID, Name: run.Name, Status: run.Status, Iterations: run.Iteration,
		Passed: run.Passed, Failed: run.Failed,
		InputTokens: run.TotalInputTokens, OutputTokens: run.TotalOutputTokens,
		CacheReadTokens: run.TotalCacheReadTokens, CacheCreationTokens: run.TotalCacheCreationTokens,
		CostUSD: run.TotalCostUSD, StartedAt: iso(run.CreatedAt), LastError: run.LastError,
	}
	if record.Terminal(run.Status) {
		e := iso(run.UpdatedAt)
		s.EndedAt = &e
	}
	return s
}
