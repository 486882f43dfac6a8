package agent

import (
	"fmt"
	"math"
)

// The largest figures one agent call may report. Anything past them (or
// negative, or not a number) came from a broken or hostile agent: a real
// call is far below, and 1e12 tokens leave room for nine million calls
// before a run's total could reach int64's end.
const (
	MaxCallTokens  = int64(1e12)
	MaxCallCostUSD = 1e6
)

// Range drops the figures out of range (negative, past MaxCallTokens or
// MaxCallCostUSD, NaN): each becomes unknown, as if not reported, and is
// named in Ignored and in what Range returns, for a warning.
func (u *Usage) Range() []string {
	var bad []string
	for _, f := range []struct {
		name string
		v    **int64
	}{{"input_tokens", &u.InputTokens}, {"output_tokens", &u.OutputTokens},
		{"cache_read_tokens", &u.CacheReadTokens}, {"cache_creation_tokens", &u.CacheCreationTokens},
		{"reasoning_tokens", &u.ReasoningTokens}} {
		switch v := *f.v; {
		case v == nil || inRange(*v):
		case *v == unreadable:
			bad = append(bad, fmt.Sprintf("%s is not a whole number from 0 to %d", f.name, MaxCallTokens))
			*f.v = nil
		default:
			bad = append(bad, fmt.Sprintf("%s %d is out of range (0 to %d)", f.name, *v, MaxCallTokens))
			*f.v = nil
		}
	}
	switch c := u.CostUSD; {
	case c == nil || *c >= 0 && *c <= MaxCallCostUSD:
	case math.IsNaN(*c):
		bad = append(bad, fmt.Sprintf("cost_usd is not a number from 0 to %v", MaxCallCostUSD))
		u.CostUSD = nil
	default:
		bad = append(bad, fmt.Sprintf("cost_usd %v is out of range (0 to %v)", *c, MaxCallCostUSD))
		u.CostUSD = nil
	}
	u.Ignored = append(u.Ignored, bad...)
	return bad
}

func inRange(n int64) bool { return n >= 0 && n <= MaxCallTokens }

// AddCountTo adds v to the total *dst as every total of token counts
// does: a negative figure (one a forged line could hold to lower a budget's
// total) or none adds nothing, and *dst stays nil (unknown) until a count
// is added; the sum stops at int64's end (SatAdd).
func AddCountTo(dst **int64, v *int64) {
	if v == nil || *v < 0 {
		return
	}
	sum := *v
	if *dst != nil {
		sum = SatAdd(sum, **dst)
	}
	*dst = &sum
}

// SatAdd is a+b for counts that are never negative, stopping at int64's
// end instead of wrapping below zero (a wrapped total would make a token
// cap never act).
func SatAdd(a, b int64) int64 {
	if b > 0 && a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
