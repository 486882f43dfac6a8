package loopstep

import (
	"fmt"
	"strings"

	"github.com/loopkit/loopkit/internal/agent"
	"github.com/loopkit/loopkit/internal/proc"
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
		IdleTimeout:            res.IdleTimedOut,
		KilledAfterResult:      res.KilledAfterResult,
		Stopped:                res.Stopped,
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
		UsageIgnored:           out.usage.Ignored,
	}
	if p.SessionID != "" {
		rec.SessionID = &p.SessionID
	}
	if res.Signal != "" {
		rec.Signal = &res.Signal
	}
	src := costUnknown
	if rec.CostUSD != nil {
		src = costReported
	} else if s.prices != nil {
		if c, ok := s.prices.Estimate(p.Model, out.usage); ok {
			rec.CostUSD, src = &c, costEstimated
		}
	}
	rec.CostSource = &src
	rec.LLMReasoningTokens = out.usage.ReasoningTokens
	rec.Model = p.Model
	rec.ToolCallsDropped = p.ToolCallsDropped
	fillError(rec, res, p, s.argv[0], out.interrupted)
	kind := ""
	if rec.ErrorKind != nil {
		kind = *rec.ErrorKind
	}
	rec.CannotWork = record.CannotWork(kind, code)
	return rec
}

// fillError says what went wrong, in the agent's own words where it said
// it: the process's failure first (could not start, timed out, killed),
// then the errors the agent reported, then what its exit code documents.
func fillError(rec *record.Step, res *proc.Result, p *agent.Result, binary string, interrupted bool) {
	var msgs []string
	kind := p.ErrorKind
	// A kill after the result line ends an agent whose work was done (Gemini
	// CLI stays up 15-30 s after its result): killed_after_result says so,
	// and the step has no error but what the agent reported.
	if res.Err != nil && !res.KilledAfterResult {
		msgs = append(msgs, res.Err.Error())
		if res.PID == 0 && (res.StatusCode == 127 || res.StatusCode == 126) {
			kind = record.ErrorKindNotFound
		}
	}
	msgs = append(msgs, p.Errors...)
	if m, k := agent.ExitMeaning(p.Format, binary, res.ExitCode); m != "" {
		msgs = append(msgs, m)
		if kind == "" {
			kind = k
		}
	}
	// An agent that failed with no error of its own format still said
	// why, on stderr (or stdout): its last words follow the exit status.
	// Not when loop-step was interrupted: the signal is why it ended, and
	// its words are whatever it printed last ("YOLO mode is enabled.").
	if len(p.Errors) == 0 && res.PID != 0 && res.StatusCode != 0 && !res.TimedOut && !interrupted {
		if words := agentWords(res.Stderr, res.Stdout); words != "" {
			head := strings.Join(msgs, "; ")
			if head == "" {
				head = fmt.Sprintf("exit status %d", res.ExitCode)
			}
			msgs = []string{head + ": " + words}
		}
	}
	// Exit 0 without the stream's own end (claude -p has exited 0 with no
	// result line, anthropics/claude-code#8126): the CLI stopped before its
	// work did, which is a failure, counted as one, not a quiet success.
	if p.Unfinished != "" && len(msgs) == 0 && res.PID != 0 && res.StatusCode == 0 && !res.TimedOut && !interrupted {
		m := "exit status 0 without the stream's " + p.Unfinished + ": the agent stopped before its end"
		if words := agentWords(res.Stderr, res.Stdout); words != "" {
			m += ": " + words
		}
		msgs = append(msgs, m)
		if kind == "" {
			kind = record.ErrorKindAPI
		}
	}
	if len(msgs) > 0 {
		msg := strings.Join(msgs, "; ")
		rec.Error = &msg
	}
	if kind != "" {
		rec.ErrorKind = &kind
	}
	if rl := p.RateLimit; rl != nil {
		rec.RateLimited = true
		if rl.ResetsAt != 0 {
			at := rl.ResetsAt
			rec.RateLimitResetsAt = &at
		}
		ev := rl.Evidence
		rec.RateLimitEvidence = &ev
	}
}

// Where a step's cost came from (record.Step.CostSource).
const (
	costReported  = "reported"
	costEstimated = "estimated"
	costUnknown   = "unknown"
)

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
