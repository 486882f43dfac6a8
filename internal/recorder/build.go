package recorder

import (
	"github.com/loopkit/loopkit/internal/failure"
	"github.com/loopkit/loopkit/internal/record"
)

// build merges the step and validation records into iteration n's log.
func (r *Recorder) build(id string, n int, in *record.Input, now int64) *record.IterationLog {
	it := &record.IterationLog{
		ID:           record.IterationID(id, n),
		RunID:        id,
		Iteration:    n,
		FilesChanged: []string{},
		Failures:     []record.Failure{},
		ToolCalls:    []record.ToolCall{},
		CreatedAt:    now,
		UpdatedAt:    now,
	}
	if v := in.Validation; v != nil {
		it.ValidationCommand = v.Command
		it.ExitCode = *v.ExitCode
		it.TimedOut = v.TimedOut
		it.Signal = v.Signal
		it.Error = v.Error
		var cutOut, cutErr bool
		it.Stdout, cutOut = capInline(v.Stdout, r.InlineCap)
		it.Stderr, cutErr = capInline(v.Stderr, r.InlineCap)
		if it.Stdout != "" || it.Stderr != "" {
			it.Failures = failure.Extract(it.Stdout + "\n" + it.Stderr)
		}
		it.StdoutTruncated, it.StderrTruncated = v.StdoutTruncated || cutOut, v.StderrTruncated || cutErr
		it.StdoutBytes, it.StderrBytes = v.StdoutBytes, v.StderrBytes
		it.ValidationCannotRun = v.CannotRun
		it.DurationMs = v.DurationMs
		it.ValidationStartedAt, it.ValidationEndedAt = v.StartedAt, v.EndedAt
		if v.FilesChanged != nil {
			it.FilesChanged = v.FilesChanged
		}
		it.Status, it.ExitCode = record.Outcome(*v.ExitCode, v.TimedOut, v.Signal, v.Error)
		if it.Status == record.StatusError && it.Error == nil {
			msg := "validation did not exit by itself"
			it.Error = &msg
		}
	} else {
		msg := "not validated"
		it.Status, it.ExitCode, it.Error = record.StatusError, -1, &msg
	}
	if s := in.Step; s != nil {
		it.LLMInputTokens = s.LLMInputTokens
		it.LLMOutputTokens = s.LLMOutputTokens
		it.LLMCacheReadTokens = s.LLMCacheReadTokens
		it.LLMCacheCreationTokens = s.LLMCacheCreationTokens
		it.CostUSD, it.CostSource = s.CostUSD, s.CostSource
		if s.ToolCalls != nil {
			it.ToolCalls = s.ToolCalls
		}
		it.Agent = agentOf(s)
		it.TasksDone, it.TasksTotal = s.TasksDone, s.TasksTotal
		it.PlanAdvancedOnFailure = it.Status != record.StatusPass && s.TasksDone != nil &&
			s.TasksDoneBefore != nil && *s.TasksDone > *s.TasksDoneBefore
		if s.ErrorKind == nil && s.Error != nil && s.ExitCode != nil && *s.ExitCode == -1 && !s.TimedOut && s.Signal == nil {
			// no exit, no timeout, no signal: the command never started
			kind := record.ErrorKindNotFound
			it.Agent.ErrorKind = &kind
		}
	}
	return it
}

// DefaultInlineCap is the inline text a log line keeps of each stream.
const DefaultInlineCap = 1 << 20

// capInline keeps the end of an inline stream, at most limit bytes, cut
// at a character boundary: a record's text never outgrows the cap.
func capInline(s string, limit int) (string, bool) {
	switch {
	case limit == 0:
		limit = DefaultInlineCap
	case limit < 0:
		limit = 0
	}
	tail, cut := record.TailBytes([]byte(s), limit)
	if !cut {
		return s, false
	}
	return record.Text(tail), true
}
