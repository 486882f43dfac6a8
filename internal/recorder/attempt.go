package recorder

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
)

// AttemptResult is what RecordAttempt did.
type AttemptResult struct {
	Attempt *record.Attempt
	Line    []byte // the stored line, byte for byte
	// Repeat is set when the same input was already recorded as an attempt,
	// or (InIteration > 0, Attempt nil) when its step is that iteration's.
	Repeat      bool
	InIteration int
	// Warning is set when the attempt was committed but a derived file
	// (run.json) could not be brought up to date; the next writer does it.
	Warning error
}

// RecordAttempt appends an agent call that is not an iteration to the
// run's attempts.jsonl, under the append lock, with its streams in
// attempts/NNN/. kind names what the call was; empty picks one from the
// step (rate_limited, interrupted, else agent).
func (r *Recorder) RecordAttempt(id string, in *record.Input, kind string) (*AttemptResult, error) {
	if in.Step == nil || in.Validation != nil {
		return nil, fmt.Errorf("an attempt is one step record")
	}
	if err := r.CheckInput(in); err != nil {
		return nil, err
	}
	// Before the repair, which drops spool files already committed: the
	// step's stdout may be the last iteration's own (see below).
	var spooled os.FileInfo
	if p := in.Step.StdoutFile; p != nil && *p != "" {
		spooled, _ = os.Lstat(*p)
	}
	lock, st, err := r.lockRepaired(id, !r.NoCreate)
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	iteration := 0
	if st.last != nil {
		iteration = st.last.Iteration
		// A writer killed between an iteration's commit and the removal of
		// its spool entry leaves that entry to be offered again (rebuilt,
		// with times from the files): its stdout is the iteration's own.
		if spooled != nil {
			if fi, err := os.Lstat(filepath.Join(r.St.IterationDir(id, iteration), AgentStdout)); err == nil && os.SameFile(spooled, fi) {
				return &AttemptResult{Repeat: true, InIteration: iteration}, nil
			}
		}
		// A driver stopped just after the iteration's commit offers its step
		// again: it is already counted there, so it is no attempt.
		if a := st.last.Agent; a != nil && a.StartedAt != 0 && a.StartedAt == in.Step.StartedAt &&
			a.EndedAt == in.Step.EndedAt && a.Command == in.Step.Command {
			return &AttemptResult{Repeat: true, InIteration: iteration}, nil
		}
	}
	digest := Digest(in)
	r.dropTranscripts(st.run, in)
	res, err := r.appendAttempt(st, in.Step, digest, kind, iteration, true)
	if err == nil && !res.Repeat {
		r.dropSpool(in)
	}
	return res, err
}

// appendAttempt commits step s as an attempt of iteration (under the
// append lock the caller holds) unless the same input (digest) is already
// one, and adds it to the run's totals, writing run.json when writeRun is
// set (else the caller writes it next).
func (r *Recorder) appendAttempt(st *repaired, s *record.Step, digest, kind string, iteration int, writeRun bool) (*AttemptResult, error) {
	run := st.run
	id := run.RunID
	if found, err := r.findAttempt(id, digest); err != nil || found != nil {
		return found, err
	}
	n := st.lastAttempt + 1 // the log's, not run.json's: that may lag
	dir := r.St.AttemptDir(id, n)
	if err := os.RemoveAll(dir); err != nil { // a leftover of a killed writer
		return nil, err
	}
	if _, err := r.St.MkdirRun(id, store.AttemptsDir, filepath.Base(dir)); err != nil {
		return nil, err
	}
	a := attemptOf(id, n, kind, s, r.nowMs())
	a.InputDigest = digest
	a.Iteration = iteration
	if err := r.writeAttemptFolder(dir, s); err != nil {
		return nil, fmt.Errorf("attempt folder: %w", err)
	}
	line, err := record.Marshal(a)
	if err != nil {
		return nil, err
	}
	if err := store.AppendLine(r.St.RunPath(id, store.AttemptsFile), line); err != nil {
		return nil, err
	}
	st.lastAttempt = n
	res := &AttemptResult{Attempt: a, Line: line}
	// Past the commit point: a failure here is repaired by the next writer.
	res.Warning = st.stale
	if st.stale == nil {
		if err := r.finishStep(id, a.Agent, dir, a.CreatedAt, nil); err != nil {
			res.Warning = err // run.json stays behind: the next writer appends it
			return res, nil
		}
		addAttemptToRun(run, a)
		run.UpdatedAt = max(run.UpdatedAt, a.CreatedAt)
		if writeRun {
			res.Warning = r.St.WriteRun(run)
			r.copyOut(run)
		}
	}
	return res, nil
}

// findAttempt returns the attempt recorded from the same input, if any.
func (r *Recorder) findAttempt(id, digest string) (*AttemptResult, error) {
	return attempts.find(r.St.RunPath(id, store.AttemptsFile), digest)
}

func (r *Recorder) writeAttemptFolder(dir string, s *record.Step) error {
	if s.TranscriptDropped {
		if s.PromptFile != nil {
			if err := r.place(s.PromptFile, -1, false, "", filepath.Join(dir, PromptFile)); err != nil {
				return err
			}
		}
		return store.SyncFolder(dir)
	}
	if err := r.place(s.StdoutFile, s.StdoutBytes, s.StrayWriter, "", filepath.Join(dir, AgentStdout)); err != nil {
		return err
	}
	if err := r.place(s.StderrFile, s.StderrBytes, s.StrayWriter, "", filepath.Join(dir, AgentStderr)); err != nil {
		return err
	}
	if s.PromptFile != nil {
		if err := r.place(s.PromptFile, -1, false, "", filepath.Join(dir, PromptFile)); err != nil {
			return err
		}
	}
	return store.SyncFolder(dir)
}

// attemptOf builds attempt n of run id from a step record.
func attemptOf(id string, n int, kind string, s *record.Step, now int64) *record.Attempt {
	if kind == "" {
		switch {
		case s.RateLimited:
			kind = record.AttemptRateLimited
		case s.Signal != nil || s.TimedOut:
			kind = record.AttemptInterrupted
		default:
			kind = record.AttemptAgent
		}
	}
	a := &record.Attempt{
		ID: record.AttemptID(id, n), RunID: id, Attempt: n, Kind: kind,
		Agent:                  agentOf(s),
		LLMInputTokens:         s.LLMInputTokens,
		LLMOutputTokens:        s.LLMOutputTokens,
		LLMCacheReadTokens:     s.LLMCacheReadTokens,
		LLMCacheCreationTokens: s.LLMCacheCreationTokens,
		CostUSD:                s.CostUSD,
		CostSource:             s.CostSource,
		ToolCalls:              s.ToolCalls,
		CreatedAt:              now,
	}
	if a.ToolCalls == nil {
		a.ToolCalls = []record.ToolCall{}
	}
	return a
}

// agentOf is the step's part of a stored record (an iteration or an
// attempt): what it did, its failure and session, so that an iteration
// names what went wrong and how to resume the agent, and its times.
func agentOf(s *record.Step) *record.Agent {
	final, _ := record.TailChars(s.FinalMessage, record.FinalMessageChars)
	return &record.Agent{
		Command:             s.Command,
		Phase:               s.Phase,
		ExitCode:            s.ExitCode,
		DurationMs:          s.DurationMs,
		TimedOut:            s.TimedOut,
		Completed:           s.Completed,
		CompletionMalformed: s.CompletionMalformed,
		FinalMessage:        final,
		Error:               s.Error,
		ErrorKind:           s.ErrorKind,
		SessionID:           s.SessionID,
		RateLimited:         s.RateLimited,
		RateLimitResetsAt:   s.RateLimitResetsAt,
		KilledAfterResult:   s.KilledAfterResult,
		ToolCallsDropped:    s.ToolCallsDropped,
		Format:              s.Format,
		Model:               s.Model,
		StartedAt:           s.StartedAt,
		EndedAt:             s.EndedAt,
		UsageIgnored:        s.UsageIgnored,
		StepID:              s.StepID,
		TranscriptDropped:   s.TranscriptDropped,
		FinalMessageBytes:   s.FinalMessageBytes,
	}
}

// addAttemptToRun adds an attempt's tokens, cost and time to the run's totals.
func addAttemptToRun(run *record.Run, a *record.Attempt) {
	run.Attempts = a.Attempt
	addUsage(run, a.LLMInputTokens, a.LLMOutputTokens, a.LLMCacheReadTokens, a.LLMCacheCreationTokens, a.CostUSD)
	if a.Agent != nil {
		run.TotalDurationMs += max(a.Agent.DurationMs, 0)
	}
}
