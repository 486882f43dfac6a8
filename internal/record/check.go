package record

import (
	"fmt"
	"math"
)

// check refuses values no loop-validate could have printed: they would
// make run totals negative or defeat a cost limit.
func (v *Validation) check() *InputError {
	if err := exitCode(v.ExitCode); err != nil {
		return err
	}
	return firstBad(
		nonNegative("duration_ms", v.DurationMs), nonNegative("started_at", v.StartedAt),
		nonNegative("ended_at", v.EndedAt), nonNegative("stdout_bytes", v.StdoutBytes),
		nonNegative("stderr_bytes", v.StderrBytes))
}

// check is Validation.check for a step record, tokens and cost included.
func (s *Step) check() *InputError {
	if err := exitCode(s.ExitCode); err != nil {
		return err
	}
	errs := []*InputError{
		nonNegative("duration_ms", s.DurationMs), nonNegative("started_at", s.StartedAt),
		nonNegative("ended_at", s.EndedAt), nonNegative("attempts", int64(s.Attempts)),
		nonNegative("stdout_bytes", s.StdoutBytes), nonNegative("stderr_bytes", s.StderrBytes),
	}
	for _, t := range []struct {
		name string
		v    *int64
	}{{"llm_input_tokens", s.LLMInputTokens}, {"llm_output_tokens", s.LLMOutputTokens},
		{"llm_cache_read_tokens", s.LLMCacheReadTokens}, {"llm_cache_creation_tokens", s.LLMCacheCreationTokens},
		{"rate_limit_resets_at", s.RateLimitResetsAt}} {
		if t.v != nil {
			errs = append(errs, nonNegative(t.name, *t.v))
		}
	}
	if c := s.CostUSD; c != nil && (math.IsNaN(*c) || math.IsInf(*c, 0) || *c < 0) {
		errs = append(errs, &InputError{Field: "cost_usd", Msg: fmt.Sprintf("must be a finite number, 0 or more, got %v", *c)})
	}
	return firstBad(errs...)
}

// exitCode is a process's exit status (0-255) or -1: it did not exit by
// itself. A null exit_code (a step that never ran) is allowed.
func exitCode(c *int) *InputError {
	if c != nil && (*c < -1 || *c > 255) {
		return &InputError{Field: "exit_code", Msg: fmt.Sprintf("must be 0 to 255, or -1 when the command did not exit by itself, got %d", *c)}
	}
	return nil
}

func nonNegative(field string, v int64) *InputError {
	if v < 0 {
		return &InputError{Field: field, Msg: fmt.Sprintf("must not be negative, got %d", v)}
	}
	return nil
}

func firstBad(errs ...*InputError) *InputError {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
