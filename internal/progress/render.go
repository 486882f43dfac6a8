// Package progress renders the progress block: a short, truncated account of
// a run's last iterations that the next iteration's prompt carries, in seed
// 002's SystemCapturedProgress format, byte for byte. It is always rebuilt
// from the durable log, so a resumed loop gets exactly the block it would
// have had.
package progress

import (
	"strconv"
	"strings"

	"github.com/loopkit/loopkit/internal/failure"
	"github.com/loopkit/loopkit/internal/quote"
	"github.com/loopkit/loopkit/internal/record"
)

// TruncatedMarker is the line put before an output that was cut.
const TruncatedMarker = "...[truncated]..."

// Limits bound the block: how many iterations, and how many characters of
// each iteration's output; and say what fills it.
type Limits struct {
	MaxEntries int
	MaxChars   int
	// Excerpt is how the output is cut: ExcerptTail (the end of the
	// output, the default) or ExcerptFailures (the lines that say what failed).
	Excerpt string
	// AgentSummary adds an **Agent:** line: the start of the agent's final message.
	AgentSummary bool
}

// Excerpt modes.
const (
	ExcerptTail     = "tail"
	ExcerptFailures = "failures"
)

// MaxFilesListed is how many changed files an entry names: an iteration
// that touched thousands (a formatter, an unignored node_modules) would
// fill the next prompts with their names. The rest are counted.
const MaxFilesListed = 50

// AgentChars is how much of the agent's final message the **Agent:** line keeps.
const AgentChars = 200

// DefaultLimits are the reference format's: the last 5 iterations, 500 characters each.
func DefaultLimits() Limits { return Limits{MaxEntries: 5, MaxChars: 500} }

// Entry is one iteration as the block shows it; --format json prints these.
type Entry struct {
	Iteration    int      `json:"iteration"`
	Command      string   `json:"command"`
	ExitCode     int      `json:"exit_code"`
	DurationMs   int64    `json:"duration_ms"`
	FilesChanged []string `json:"files_changed"`
	// Output is the kept end of the output, trimmed, without the marker line.
	Output    string `json:"output"`
	Truncated bool   `json:"truncated"`
	// Agent is the start of the agent's final message, with AgentSummary.
	Agent *string `json:"agent,omitempty"`
}

// Entries returns the last l.MaxEntries of logs as entries, oldest first.
func Entries(logs []record.IterationLog, l Limits) []Entry {
	if l.MaxEntries <= 0 {
		return []Entry{}
	}
	if len(logs) > l.MaxEntries {
		logs = logs[len(logs)-l.MaxEntries:]
	}
	out := make([]Entry, 0, len(logs))
	for i := range logs {
		out = append(out, NewEntry(&logs[i], l))
	}
	return out
}

// NewEntry cuts one iteration's output as l says: by default stdout unless
// it is empty, then stderr; its last l.MaxChars characters (never splitting
// one), trimmed.
func NewEntry(it *record.IterationLog, l Limits) Entry {
	tail, cut := cutOutput(it, l)
	files := it.FilesChanged
	if files == nil {
		files = []string{}
	}
	var agent *string
	if l.AgentSummary {
		a := agentSummary(it)
		agent = &a
	}
	return Entry{
		Iteration:    it.Iteration,
		Command:      it.ValidationCommand,
		ExitCode:     it.ExitCode,
		DurationMs:   it.DurationMs,
		FilesChanged: files,
		Output:       strings.TrimSpace(tail),
		Truncated:    cut,
		Agent:        agent,
	}
}

// Render renders the progress block of the last l.MaxEntries of logs; ""
// when there are none.
func Render(logs []record.IterationLog, l Limits) string {
	if l.MaxEntries <= 0 {
		return ""
	}
	if len(logs) > l.MaxEntries {
		logs = logs[len(logs)-l.MaxEntries:]
	}
	var b strings.Builder
	for i := range logs {
		writeEntry(&b, &logs[i], l)
	}
	// The block goes into a prompt: a NUL that some output held would
	// end it in a CLI reading C strings, and no {prompt} argument can
	// carry one (every later step failed).
	return strings.ReplaceAll(b.String(), "\x00", "\uFFFD")
}

// writeEntry writes one entry exactly as the reference implementation formats it.
// The seed trims the marker and the tail together, so an empty kept tail
// leaves the marker alone; we build the same string before trimming. A
// failures excerpt carries its own markers.
func writeEntry(b *strings.Builder, it *record.IterationLog, l Limits) {
	tail, cut := cutOutput(it, l)
	if cut && l.Excerpt != ExcerptFailures {
		tail = TruncatedMarker + "\n" + tail
	}
	files := "none"
	if len(it.FilesChanged) > 0 {
		shown := it.FilesChanged[:min(len(it.FilesChanged), MaxFilesListed)]
		names := make([]string, len(shown), len(shown)+1)
		for i, f := range shown {
			names[i] = quote.Line(f)
		}
		if n := len(it.FilesChanged) - len(shown); n > 0 {
			names = append(names, "and "+strconv.Itoa(n)+" more")
		}
		files = strings.Join(names, ", ")
	}
	b.WriteString("## Iteration ")
	b.WriteString(strconv.Itoa(it.Iteration))
	b.WriteString("\n**Command:** `")
	b.WriteString(it.ValidationCommand)
	b.WriteString("`\n**Exit code:** ")
	b.WriteString(strconv.Itoa(it.ExitCode))
	b.WriteString("\n**Duration:** ")
	b.WriteString(strconv.FormatInt(it.DurationMs, 10))
	b.WriteString("ms\n**Files changed:** ")
	b.WriteString(files)
	if it.TasksDone != nil && it.TasksTotal != nil {
		// Not in the reference format: only runs with a plan carry it.
		b.WriteString("\n**Tasks:** ")
		b.WriteString(strconv.Itoa(*it.TasksDone) + "/" + strconv.Itoa(*it.TasksTotal) + " done")
		if it.PlanAdvancedOnFailure {
			b.WriteString(" (boxes ticked although the validation failed: untick what does not pass)")
		}
	}
	if l.AgentSummary {
		b.WriteString("\n**Agent:** ")
		b.WriteString(agentSummary(it))
	}
	out := strings.TrimSpace(tail)
	fence := record.Fence(out)
	b.WriteString("\n**Output:**\n" + fence + "\n")
	b.WriteString(out)
	b.WriteString("\n" + fence + "\n\n")
}

// cutOutput is the iteration's stdout, or its stderr when stdout is empty,
// cut to its last maxChars characters; cut reports that something was left
// off. The failures excerpt reads both streams (a build error is often on
// stderr while stdout says only FAIL) and picks the lines that say what failed.
func cutOutput(it *record.IterationLog, l Limits) (tail string, cut bool) {
	if l.Excerpt == ExcerptFailures {
		output := it.Stdout
		if it.Stderr != "" {
			output = strings.TrimRight(output, "\n") + "\n" + it.Stderr
		}
		return failure.Excerpt(output, max(l.MaxChars, 0))
	}
	output := it.Stdout
	if output == "" {
		output = it.Stderr
	}
	return record.TailChars(output, max(l.MaxChars, 0))
}

// agentSummary is the start of the agent's final message on one line, so
// the next prompt says what was tried as well as what failed.
func agentSummary(it *record.IterationLog) string {
	if it.Agent == nil {
		return "(no agent step recorded)"
	}
	msg := strings.Join(strings.Fields(failure.Strip(it.Agent.FinalMessage)), " ")
	if msg == "" {
		return "(no final message)"
	}
	if h := record.HeadChars(msg, AgentChars); h != msg {
		return h + "…"
	}
	return msg
}
