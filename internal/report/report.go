// Package report renders the run's markdown documents from its log: the
// stuck report and the context snapshots.
package report

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/loopkit/loopkit/internal/lazyre"
	"github.com/loopkit/loopkit/internal/quote"
	"github.com/loopkit/loopkit/internal/record"
)

// History is what the reports keep of one iteration.
type History struct {
	Iteration      int
	Status         string
	PrimaryFailure string
	Dir            string
}

// Collector gathers history rows and the files modified across a run, one
// IterationLog at a time, so a long log is never held in memory.
type Collector struct {
	Rows []History
	// AgentTrouble lists the iterations whose agent step failed as a process
	// (exit code, timeout, the error it reported), one line each.
	AgentTrouble []string
	files        map[string]bool
}

// Add takes one iteration; dir is its folder in the store.
func (c *Collector) Add(it *record.IterationLog, dir string) {
	if c.files == nil {
		c.files = map[string]bool{}
	}
	for _, f := range it.FilesChanged {
		c.files[f] = true
	}
	c.Rows = append(c.Rows, History{Iteration: it.Iteration, Status: strings.ToUpper(it.Status), PrimaryFailure: PrimaryFailure(it), Dir: dir})
	if t := agentTrouble(it.Agent); t != "" {
		c.AgentTrouble = append(c.AgentTrouble, fmt.Sprintf("iteration %d: %s", it.Iteration, t))
	}
}

// agentTrouble describes an agent step that did not end well, "" for one
// that exited 0 with no error.
func agentTrouble(ag *record.Agent) string {
	if ag == nil {
		return ""
	}
	var parts []string
	switch {
	case ag.TimedOut:
		parts = append(parts, "timed out")
	case ag.KilledAfterResult:
		// its result was given: stopping a lingering CLI is no trouble
	case ag.ExitCode == nil || *ag.ExitCode < 0:
		parts = append(parts, "did not exit by itself")
	case *ag.ExitCode != 0:
		parts = append(parts, fmt.Sprintf("exit %d", *ag.ExitCode))
	}
	if ag.Error != nil && strings.TrimSpace(*ag.Error) != "" {
		e := cell(*ag.Error)
		if ag.ErrorKind != nil {
			e += " (" + *ag.ErrorKind + ")"
		}
		parts = append(parts, e)
	}
	return strings.Join(parts, " — ")
}

// Files lists every path changed in any iteration, sorted.
func (c *Collector) Files() []string {
	out := make([]string, 0, len(c.files))
	for f := range c.files {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// errorLine matches lines that look like a failure: the usual words, or a
// compiler/test location such as "parser_test.go:12:".
var errorLine = lazyre.New(`(?i)(error|fail|panic|fatal|exception|undefined|cannot|timed out|traceback|unexpected|assert|denied|not found|no such)|[\w./-]+\.\w+:\d+:`)

// PrimaryFailure is the first output line that looks like an error (stdout,
// then stderr), else the error the iteration recorded, else its first line.
func PrimaryFailure(it *record.IterationLog) string {
	if it.Status == record.StatusPass {
		return "-"
	}
	if len(it.Failures) > 0 {
		return cell(failingTests(it.Failures))
	}
	first := ""
	for _, out := range []string{it.Stdout, it.Stderr} {
		for _, line := range strings.Split(out, "\n") {
			line = strings.TrimSpace(line)
			if line == "" {
				continue
			}
			if first == "" {
				first = line
			}
			if errorLine.MatchString(line) {
				return cell(line)
			}
		}
	}
	if it.Error != nil {
		return cell(*it.Error)
	}
	if first != "" {
		return cell(first)
	}
	return fmt.Sprintf("exit %d", it.ExitCode)
}

// failingTests names the failing tests and the first one's message.
func failingTests(fs []record.Failure) string {
	names := make([]string, 0, 4)
	for i, f := range fs {
		if i == 3 {
			names = append(names, fmt.Sprintf("+%d more", len(fs)-3))
			break
		}
		names = append(names, f.Test)
	}
	s := fmt.Sprintf("%d failing: %s", len(fs), strings.Join(names, ", "))
	if fs[0].Message != "" {
		s += " — " + fs[0].Message
	}
	return s
}

// cell makes a line safe inside a markdown table cell and keeps it short.
func cell(s string) string {
	s = quote.Blank(s) // the output's own: cat of stuck.md must not obey it
	s = strings.ReplaceAll(s, "|", `\|`)
	if h := record.HeadChars(s, 160); h != s {
		return h + "…"
	}
	return s
}

// HypothesesPlaceholder is the Hypotheses section of a fresh stuck report.
const HypothesesPlaceholder = "_Left for a person or a follow-up agent step (`loop run --stuck-agent`): what is the root cause, and what should the next attempt do differently?_\n\n1. \n2. \n3. \n"

// HistoryRows is how many iterations the stuck report lists, the last
// ones: the stuck agent reads the report whole as its prompt, and one row
// per iteration of a long run made it grow without bound (past what an
// agent's {prompt} argument takes, and paid for in tokens).
const HistoryRows = 50

// FilesListed is how many of the files the run changed the stuck report
// names (an agent writing a new file each iteration made the list grow
// with the run).
const FilesListed = 200

// Stuck renders the stuck report.
func Stuck(run *record.Run, task string, c *Collector) string {
	var b strings.Builder
	b.WriteString("# Stuck Report\n\n## Task\n")
	if strings.TrimSpace(task) == "" {
		task = "(no task recorded for this run)"
	}
	b.WriteString(strings.TrimRight(task, "\n") + "\n\n## Constraints\n")
	writeConstraints(&b, run)
	fmt.Fprintf(&b, "\n## Status\nHard stop reached after %d verification attempts.\n", len(c.Rows))
	if run.LastError != nil {
		// it may quote the agent (the watchdog's evidence, its error): one line
		fmt.Fprintf(&b, "Last error: %s\n", quote.Line(*run.LastError))
	}
	writeWatchdog(&b, run.Watchdog)
	b.WriteString("\n## Hypotheses\n\n")
	b.WriteString(HypothesesPlaceholder)
	rows, trouble := c.Rows, c.AgentTrouble
	b.WriteString("\n## Verification History\n\n")
	if n := len(rows) - HistoryRows; n > 0 {
		rows = rows[n:]
		fmt.Fprintf(&b, "The last %d iterations; `loop-view logs %s` lists all %d.\n\n", HistoryRows, run.RunID, len(c.Rows))
	}
	b.WriteString("| Run | Status | Primary Failure |\n|-----|--------|-----------------|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| iteration %d | %s | %s |\n", r.Iteration, r.Status, r.PrimaryFailure)
	}
	if len(trouble) > 0 {
		b.WriteString("\n## Agent Failures\n\n")
		if n := len(trouble) - HistoryRows; n > 0 {
			trouble = trouble[n:]
			fmt.Fprintf(&b, "The last %d of %d.\n\n", HistoryRows, len(c.AgentTrouble))
		}
		writeList(&b, trouble)
	}
	b.WriteString("\n## Artifact References\n\n")
	if len(rows) < len(c.Rows) {
		fmt.Fprintf(&b, "- iterations 1 to %d: %s/\n", rows[0].Iteration-1, filepath.Dir(rows[0].Dir))
	}
	for _, r := range rows {
		fmt.Fprintf(&b, "- iteration %d: %s/\n", r.Iteration, r.Dir)
	}
	b.WriteString("\n## Files Modified\n\n")
	files := c.Files()
	writeList(&b, files[:min(len(files), FilesListed)])
	if n := len(files) - FilesListed; n > 0 {
		fmt.Fprintf(&b, "- … and %d more (every iteration's `files_changed` is in iterations.jsonl)\n", n)
	}
	return b.String()
}

// writeWatchdog lists the watchdog's signals and rewrites, when any fired.
func writeWatchdog(b *strings.Builder, wd *record.Watchdog) {
	if wd == nil || len(wd.Fired) == 0 {
		return
	}
	fmt.Fprintf(b, "\n## Watchdog\n\nSignals that fired (%d prompt rewrites):\n\n", wd.Rewrites)
	for _, s := range wd.Fired {
		fmt.Fprintf(b, "- iteration %d: `%s`: %s\n", s.Iteration, s.Name, cell(s.Evidence))
	}
}

func writeConstraints(b *strings.Builder, run *record.Run) {
	set := run.Settings.Map()
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if run.ValidationCommand != "" && set["validate"] == "" {
		fmt.Fprintf(b, "- validation command: `%s`\n", run.ValidationCommand)
	}
	for _, k := range keys {
		fmt.Fprintf(b, "- %s: `%s`\n", k, set[k])
	}
	if len(keys) == 0 && run.ValidationCommand == "" {
		b.WriteString("(none recorded)\n")
	}
}

func writeList(b *strings.Builder, items []string) {
	if len(items) == 0 {
		b.WriteString("(none)\n")
		return
	}
	for _, it := range items {
		fmt.Fprintf(b, "- %s\n", quote.Line(it)) // a file's name is the agent's
	}
}

// Snapshot renders a context snapshot.
func Snapshot(n int, milestone string, at time.Time, run *record.Run, lastPrompt, progress string, files []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Context Snapshot %03d\n\n## Timestamp\n%s\n\n## Milestone\n%s\n\n", n, at.UTC().Format(time.RFC3339), milestone)
	fmt.Fprintf(&b, "## Run\n- id: %s\n- status: %s\n- iterations: %d (%d passed, %d failed)\n\n", run.RunID, run.Status, run.Iteration, run.Passed, run.Failed)
	b.WriteString("## Last Prompt\n\n")
	if strings.TrimSpace(lastPrompt) == "" {
		b.WriteString("(none yet)\n")
	} else {
		// longer than any fence in the prompt (the progress block's own)
		prompt := strings.TrimRight(lastPrompt, "\n")
		fence := record.Fence(prompt)
		fence += strings.Repeat("`", max(0, 4-len(fence)))
		b.WriteString(fence + "text\n" + prompt + "\n" + fence + "\n")
	}
	b.WriteString("\n## Progress\n\n")
	if progress == "" {
		b.WriteString("(no iterations yet)\n")
	} else {
		b.WriteString(strings.TrimRight(progress, "\n") + "\n")
	}
	b.WriteString("\n## Files Modified\n\n")
	writeList(&b, files)
	return b.String()
}

// ReplaceSection replaces the body of the "## name" section of a markdown
// document (up to the next "## " heading) with body.
func ReplaceSection(doc, name, body string) (string, bool) {
	head := "## " + name + "\n"
	start := strings.Index(doc, head)
	if start < 0 {
		return doc, false
	}
	from := start + len(head)
	end := len(doc)
	if next := strings.Index(doc[from:], "\n## "); next >= 0 {
		end = from + next + 1
	}
	return doc[:from] + "\n" + body + "\n\n" + doc[end:], true
}

// Section returns the body of the "## name" section, "" when absent.
func Section(doc, name string) string {
	head := "## " + name + "\n"
	start := strings.Index(doc, head)
	if start < 0 {
		return ""
	}
	body := doc[start+len(head):]
	if next := strings.Index(body, "\n## "); next >= 0 {
		body = body[:next+1]
	}
	return body
}

var emptyItem = lazyre.New(`^[0-9]+\.$`)

// WrittenHypotheses is what someone wrote in a stuck report's Hypotheses
// section: the placeholder's prompt and empty numbered lines left out, ""
// when nothing was written.
func WrittenHypotheses(doc string) string {
	var keep []string
	for _, line := range strings.Split(Section(doc, "Hypotheses"), "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "_Left for a person") || emptyItem.MatchString(t) {
			continue
		}
		keep = append(keep, line)
	}
	return strings.TrimSpace(strings.Join(keep, "\n"))
}
