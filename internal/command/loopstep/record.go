package loopstep

import (
	"strings"

	"github.com/loopkit/loopkit/internal/agent"
	"github.com/loopkit/loopkit/internal/record"
)

// record builds the step record: process facts from the last attempt,
// usage summed over all attempts (each one was paid for), the rest parsed
// from the last attempt's output.
func (s *stepRun) record(out *outcome) *record.Step {
	res, p := out.last, out.parsed
	code := res.ExitCode
	completed, malformed := agent.Completion(p.FinalMessage, s.opts.Marker, s.opts.Mode)
	rec := &record.Step{
		Type:                   record.TypeStep,
		Command:                s.command,
		Dir:                    s.dir,
		Phase:                  s.opts.Phase,
		ExitCode:               &code,
		StartedAt:              out.first.UnixMilli(),
		EndedAt:                res.Ended.UnixMilli(),
		DurationMs:             res.Ended.Sub(out.first).Milliseconds(),
		TimedOut:               res.TimedOut,
		Attempts:               out.attempts,
		Format:                 p.Format,
		LLMInputTokens:         out.usage.InputTokens,
		LLMOutputTokens:        out.usage.OutputTokens,
		LLMCacheReadTokens:     out.usage.CacheReadTokens,
		LLMCacheCreationTokens: out.usage.CacheCreationTokens,
		CostUSD:                out.usage.CostUSD,
		ToolCalls:              p.ToolCalls,
		FinalMessage:           p.FinalMessage,
		Completed:              completed,
		CompletionMalformed:    malformed,
		StdoutFile:             optional(s.stdoutPath),
		StderrFile:             optional(s.stderrPath),
		PromptFile:             optional(s.promptPath),
		GitBase:                s.gitBase,
		GitObjects:             s.gitObjects,
		StdoutBytes:            res.StdoutBytes,
		StderrBytes:            res.StderrBytes,
		StrayWriter:            res.StrayWriter,
	}
	if p.SessionID != "" {
		rec.SessionID = &p.SessionID
	}
	if res.Signal != "" {
		rec.Signal = &res.Signal
	}
	// The process's own failure comes first; else what the agent reported.
	if res.Err != nil {
		msg := res.Err.Error()
		rec.Error = &msg
	} else if len(p.Errors) > 0 {
		msg := strings.Join(p.Errors, "; ")
		rec.Error = &msg
	}
	return rec
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
