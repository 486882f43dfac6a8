package view

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/view/jsonobj"
)

// decodeLog decodes only the named fields of a stored IterationLog: the text
// views never unescape 25 KB of stdout they will not show.
func decodeLog(raw []byte, keys map[string]bool) (*record.IterationLog, error) {
	var b strings.Builder
	b.WriteByte('{')
	err := jsonobj.Scan(raw, func(key string, v []byte) error {
		if keys[key] {
			if b.Len() > 1 {
				b.WriteByte(',')
			}
			kb, _ := json.Marshal(key)
			b.Write(kb)
			b.WriteByte(':')
			b.Write(v)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	b.WriteByte('}')
	it := &record.IterationLog{}
	if err := json.Unmarshal([]byte(b.String()), it); err != nil {
		return nil, err
	}
	return it, nil
}

func keySet(keys ...string) map[string]bool {
	m := map[string]bool{}
	for _, k := range keys {
		m[k] = true
	}
	return m
}

var (
	// built on first use, not at every start of every command linking views
	logKeys = sync.OnceValue(func() map[string]bool {
		return keySet("iteration", "validation_command", "exit_code", "status", "duration_ms", "files_changed", "error", "tasks_done", "tasks_total", "plan_advanced_on_failure", "failures", "review")
	})
	verboseKeys = sync.OnceValue(func() map[string]bool {
		return keySet("iteration", "validation_command", "exit_code", "status", "duration_ms", "files_changed", "error", "tasks_done", "tasks_total", "plan_advanced_on_failure", "failures", "review",
			"tool_calls", "llm_input_tokens", "llm_output_tokens", "llm_cache_read_tokens", "llm_cache_creation_tokens", "cost_usd", "agent")
	})
)

// Logs is the Logs view: one line per iteration,
// "[N] <command> — exit <code> — <ms>ms — <k> files".
type Logs struct {
	W       io.Writer
	Style   Style
	Verbose bool
	// Width pads "[N]" on a terminal (the widest iteration number's width).
	Width int
	// Signals are the watchdog signals that fired, by iteration (-v marks them).
	Signals map[int][]record.Signal
	// Attempts are the run's paid calls that are not iterations, by the
	// iteration they belong to (AttemptsByIteration).
	Attempts map[int][]record.Attempt
	last     int // the highest iteration written
}

// Write renders one stored IterationLog.
func (v *Logs) Write(rec *Record) error {
	keys := logKeys()
	if v.Verbose {
		keys = verboseKeys()
	}
	it, err := decodeLog(rec.Raw, keys)
	if err != nil {
		return &LineError{Line: rec.Line, Offset: rec.Offset, Err: err}
	}
	v.last = max(v.last, it.Iteration)
	num := fmt.Sprintf("[%d]", it.Iteration)
	if v.Style.Align && len(num) < v.Width+2 {
		num += strings.Repeat(" ", v.Width+2-len(num))
	}
	files := Plural(len(it.FilesChanged), "file")
	if it.FilesChanged == nil && bytes.Contains(rec.Raw, []byte(`"files_changed":null`)) {
		files = "files unknown" // its tree was not recorded
	}
	line := fmt.Sprintf("%s %s — exit %d — %dms — %s", num, Escape(it.ValidationCommand, false),
		it.ExitCode, it.DurationMs, files)
	if it.TasksDone != nil && it.TasksTotal != nil {
		line += fmt.Sprintf(" — tasks %d/%d", *it.TasksDone, *it.TasksTotal)
		if it.PlanAdvancedOnFailure {
			line += " (plan advanced on failure)"
		}
	}
	if it.Error != nil && *it.Error != "" {
		line += " — " + Escape(*it.Error, false)
	}
	if it.Review != nil {
		line += " — review: " + Escape(it.Review.Verdict, false)
	}
	if len(it.Failures) > 0 {
		line += " — " + Escape(FailingSummary(it.Failures, 3), false)
	}
	if atts := v.Attempts[it.Iteration]; len(atts) > 0 {
		line += " — attempts: " + AttemptsLine(atts)
	}
	sigs := v.Signals[it.Iteration]
	if v.Verbose && len(sigs) > 0 {
		names := make([]string, len(sigs))
		for i, s := range sigs {
			names[i] = s.Name
		}
		line += " — watchdog: " + strings.Join(names, ", ")
	}
	if _, err := fmt.Fprintln(v.W, v.Style.paint(exitColor(it.ExitCode, it.Status), line)); err != nil {
		return err
	}
	if v.Verbose {
		for _, s := range sigs {
			if _, err := fmt.Fprintf(v.W, "    watchdog %s: %s\n", s.Name, Escape(s.Evidence, false)); err != nil {
				return err
			}
		}
		return v.details(it)
	}
	return nil
}

// Trailing writes the attempts that came after the last iteration written
// (a step that could not work, a call interrupted at the end): no iteration
// line carries them, and they are often why the run ended.
func (v *Logs) Trailing() error {
	var keys []int
	for n := range v.Attempts {
		if n > v.last {
			keys = append(keys, n)
		}
	}
	sort.Ints(keys)
	for _, n := range keys {
		for _, a := range v.Attempts[n] {
			line := fmt.Sprintf("attempt %d: %s %s", a.Attempt, Escape(a.Kind, false), Cost(a.CostUSD))
			if ag := agentLine(a.Agent); ag != "" {
				line += " — " + ag
			}
			color := ""
			if a.Agent != nil {
				color = agentColor(a.Agent)
			}
			if _, err := fmt.Fprintln(v.W, v.Style.paint(color, line)); err != nil {
				return err
			}
		}
	}
	return nil
}

// SignalsByIteration indexes the watchdog signals of a run.
func SignalsByIteration(run *record.Run) map[int][]record.Signal {
	if run == nil || run.Watchdog == nil {
		return nil
	}
	m := map[int][]record.Signal{}
	for _, s := range run.Watchdog.Fired {
		m[s.Iteration] = append(m[s.Iteration], s)
	}
	return m
}

func (v *Logs) details(it *record.IterationLog) error {
	if line := agentLine(it.Agent); line != "" {
		if _, err := fmt.Fprintln(v.W, "    "+v.Style.paint(agentColor(it.Agent), line)); err != nil {
			return err
		}
	}
	if r := it.Review; r != nil && r.Notes != "" {
		if _, err := fmt.Fprintf(v.W, "    review (attempt %d): %s\n", r.Attempt, Escape(r.Notes, false)); err != nil {
			return err
		}
	}
	// An iteration no agent reported anything for (a CI stage, a
	// validation-only loop) has no tokens line: a row of dashes says nothing.
	if it.LLMInputTokens != nil || it.LLMOutputTokens != nil || it.LLMCacheReadTokens != nil ||
		it.LLMCacheCreationTokens != nil || it.CostUSD != nil {
		_, err := fmt.Fprintf(v.W, "    tokens: in %s, out %s, cache read %s, cache write %s; cost %s\n",
			tokens(it.LLMInputTokens), tokens(it.LLMOutputTokens), tokens(it.LLMCacheReadTokens),
			tokens(it.LLMCacheCreationTokens), CostOf(it.CostUSD, it.CostSource))
		if err != nil {
			return err
		}
	}
	for _, tc := range it.ToolCalls {
		state := "ok"
		switch {
		case tc.Denied: // refused by the agent's CLI: it never ran
			state = v.Style.paint(red, "denied")
		case tc.IsError:
			state = v.Style.paint(red, "error")
		}
		if _, err := fmt.Fprintf(v.W, "    %s %s: %s\n", Escape(tc.ToolName, false), state, Escape(tc.ArgumentsSummary, false)); err != nil {
			return err
		}
	}
	if ag := it.Agent; ag != nil && ag.ToolCallsDropped > 0 {
		if _, err := fmt.Fprintf(v.W, "    … %d more tool calls, not kept (--max-tool-calls)\n", ag.ToolCallsDropped); err != nil {
			return err
		}
	}
	return nil
}

// FailingSummary names the failing tests: "2 failing: TestA, TestB", at
// most show names, then "+N more".
func FailingSummary(fs []record.Failure, show int) string {
	names := make([]string, 0, min(len(fs), show))
	for i, f := range fs {
		if i == show {
			names = append(names, fmt.Sprintf("+%d more", len(fs)-show))
			break
		}
		names = append(names, f.Test)
	}
	return fmt.Sprintf("%d failing: %s", len(fs), strings.Join(names, ", "))
}

// Plural is "1 word" or "N words".
func Plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// agentLine says how the agent step ended: exit code, timeout, and the
// error it reported with its kind ("" when no step was recorded).
func agentLine(ag *record.Agent) string {
	if ag == nil {
		return ""
	}
	line := "agent: "
	switch {
	case ag.TimedOut:
		line += "timed out"
	case ag.KilledAfterResult:
		line += "stopped after its result (it did not exit)"
	case ag.ExitCode == nil || *ag.ExitCode < 0:
		line += "did not exit by itself"
	default:
		line += fmt.Sprintf("exit %d", *ag.ExitCode)
	}
	if ag.Error != nil && *ag.Error != "" {
		line += " — " + Escape(*ag.Error, false)
	}
	if ag.ErrorKind != nil && *ag.ErrorKind != "" {
		line += " (" + *ag.ErrorKind + ")"
	}
	if ag.RateLimited {
		line += " — rate limited"
	}
	return line
}

func agentColor(ag *record.Agent) string {
	if ag.KilledAfterResult && !ag.TimedOut && ag.ErrorKind == nil {
		return ""
	}
	if ag.TimedOut || ag.ErrorKind != nil || ag.ExitCode == nil || *ag.ExitCode != 0 {
		return red
	}
	return ""
}
