package view

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/loopkit/loopkit/internal/merge"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
)

// Paths are the files of a run, named as describe --json gives them.
type Paths struct {
	RunDir        string `json:"run_dir"`
	RunJSON       string `json:"run_json"`
	Iterations    string `json:"iterations_log"`
	Events        string `json:"events_log"`
	Report        string `json:"report"`
	Manifest      string `json:"manifest"`
	StuckReport   string `json:"stuck_report"`
	Context       string `json:"context_latest"`
	IterationsDir string `json:"iterations_dir"`
}

// RunPaths lists a run's files, whether or not they exist yet.
func RunPaths(st *store.Store, id string) Paths {
	return Paths{
		RunDir:        st.RunDir(id),
		RunJSON:       st.RunPath(id, store.RunFile),
		Iterations:    st.RunPath(id, store.IterationsFile),
		Events:        st.RunPath(id, store.EventsFile),
		Report:        st.RunPath(id, store.ReportFile),
		Manifest:      st.RunPath(id, store.ManifestFile),
		StuckReport:   st.RunPath(id, store.StuckFile),
		Context:       filepath.Join(st.RunPath(id, store.ContextDir), "context_latest.md"),
		IterationsDir: st.RunPath(id, store.IterationsDir),
	}
}

// DescribeJSON is run.json as stored (fields in their order, unknown ones
// kept) with "paths", "live", "interrupted" and the last iteration's
// "review" (when LoadReview found one) added: one line.
func DescribeJSON(ri RunInfo, p Paths, live bool) ([]byte, error) {
	extra, err := record.Marshal(struct {
		Paths       Paths            `json:"paths"`
		Live        bool             `json:"live"`
		Interrupted bool             `json:"interrupted"`
		Review      *IterationReview `json:"review,omitempty"`
	}{p, live, ri.Interrupted, ri.Review})
	if err != nil {
		return nil, err
	}
	raw := bytes.TrimSpace(ri.Raw)
	if len(raw) < 2 || raw[len(raw)-1] != '}' {
		return nil, fmt.Errorf("run.json of %s is not an object", ri.Run.RunID)
	}
	out := append([]byte(nil), raw[:len(raw)-1]...)
	if len(bytes.TrimSpace(out)) > 1 {
		out = append(out, ',')
	}
	out = append(out, extra[1:]...)
	if !json.Valid(out) {
		return nil, fmt.Errorf("run.json of %s: cannot add paths", ri.Run.RunID)
	}
	return out, nil
}

// Describe writes the Describe view: status, artifact, totals,
// timestamps and the run's files.
func Describe(w io.Writer, style Style, ri RunInfo, p Paths, live bool) error {
	r := ri.Run
	tw := tabwriter.NewWriter(w, 0, 4, 1, ' ', 0)
	status := Escape(ri.StatusMark(), false)
	if live {
		status += " (live)"
	}
	artifact := "-"
	if r.ArtifactPath != nil {
		artifact = Escape(*r.ArtifactPath, false)
	}
	lastErr := "-"
	if r.LastError != nil {
		lastErr = Escape(*r.LastError, false)
	}
	rows := [][2]string{
		{"run", Escape(r.RunID, false)},
		{"name", Escape(r.Name, false)},
		{"status", style.paint(runColor(ri.StatusMark()), status)},
		{"artifact", fmt.Sprintf("%s (%s)", artifact, Escape(orDash(r.ArtifactStatus), false))},
		{"validation", Escape(orDash(r.ValidationCommand), false)},
		{"workspace", Escape(orDash(r.WorkspaceRoot), false)},
		{"iterations", fmt.Sprintf("%d (%d passed, %d failed)", r.Iteration, r.Passed, r.Failed)},
		{"tokens", fmt.Sprintf("in %s, out %s, cache read %s, cache write %s", tokens(r.TotalInputTokens), tokens(r.TotalOutputTokens), tokens(r.TotalCacheReadTokens), tokens(r.TotalCacheCreationTokens))},
		{"duration", fmt.Sprintf("%s (%dms)", Millis(r.TotalDurationMs), r.TotalDurationMs)},
		{"cost", Cost(r.TotalCostUSD)},
		{"attempts", attemptsRow(ri.Attempts)},
		{"last error", lastErr},
		{"created", Stamp(&r.CreatedAt)},
		{"updated", Stamp(&r.UpdatedAt)},
		{"stuck at", Stamp(r.StuckAt)},
		{"resolved at", Stamp(r.ResolvedAt)},
		{"run.json", present(p.RunJSON)},
		{"iterations.jsonl", present(p.Iterations)},
		{"events.jsonl", present(p.Events)},
		{"report.tsv", present(p.Report)},
		{"manifest.json", present(p.Manifest)},
		{"stuck.md", present(p.StuckReport)},
		{"context", present(p.Context)},
		{"iterations/", present(p.IterationsDir)},
	}
	if rv := ri.Review; rv != nil {
		what := fmt.Sprintf("%s on iteration %d (attempt %d)", rv.Verdict, rv.Iteration, rv.Attempt)
		if rv.Notes != "" {
			what += ": " + record.HeadChars(rv.Notes, 200)
		}
		rows = append(rows, [2]string{"review", Escape(what, false)})
	}
	rows = append(rows, watchdogRows(r)...)
	if m := r.Merge; m != nil {
		what := m.Status
		if m.Commit != "" {
			what += " as " + m.Commit
		}
		if len(m.Untracked) > 0 {
			what += ", untracked files in the way: " + merge.List(m.Untracked)
		}
		if len(m.Unignored) > 0 {
			what += ", un-ignored: " + merge.List(m.Unignored)
		}
		rows = append(rows, [2]string{"merge", Escape(fmt.Sprintf("%s into %s (%s): %s", m.RunBranch, m.Target, m.Strategy, what), false)})
	}
	for _, row := range rows {
		if _, err := fmt.Fprintf(tw, "%s:\t%s\n", row[0], row[1]); err != nil {
			return err
		}
	}
	return tw.Flush()
}

// watchdogRows are the watchdog's rewrites and every signal that fired,
// with its iteration and evidence.
func watchdogRows(r *record.Run) [][2]string {
	wd := r.Watchdog
	if wd == nil || (len(wd.Fired) == 0 && wd.Rewrites == 0) {
		return nil
	}
	rw := fmt.Sprintf("%d prompt rewrites", wd.Rewrites)
	if wd.Prompt != "" {
		rw += ", now " + Escape(wd.Prompt, false)
	}
	rows := [][2]string{{"watchdog", rw}}
	for _, s := range wd.Fired {
		rows = append(rows, [2]string{"signal", fmt.Sprintf("iteration %d %s: %s", s.Iteration, s.Name, Escape(s.Evidence, false))})
	}
	return rows
}

// present marks a path the run has not written (yet), so describe never
// points a person at a file that is not there.
func present(path string) string {
	if _, err := os.Lstat(path); err != nil {
		return Escape(path, false) + " (not written)"
	}
	return Escape(path, false)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// attemptsRow totals the calls that are not iterations ("-" when none): in
// the run's totals, so a person can see what they cost.
func attemptsRow(atts []record.Attempt) string {
	if len(atts) == 0 {
		return "-"
	}
	return AttemptsTotal(atts)
}
