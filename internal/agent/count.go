package agent

import (
	"math"
	"strconv"
)

// count is a token figure as an agent printed it. Into an *int64,
// encoding/json leaves a made-up 0 for a number it cannot store (2^64,
// 1e400, 10.5) or a string, and decodeLoose accepts that: such a figure
// becomes unreadable instead, which Usage.Range drops with a warning. A
// whole number written as a float (1e3, 12.0) is that number.
type count int64

// unreadable marks a figure that is no whole number in int64's range.
const unreadable = math.MinInt64

func (c *count) UnmarshalJSON(b []byte) error {
	s := string(b)
	if s == "null" {
		return nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		*c = count(n)
		return nil
	}
	// within ±2^62 a float converts to int64 exactly
	if f, err := strconv.ParseFloat(s, 64); err == nil && b[0] != '"' && f == math.Trunc(f) && math.Abs(f) < 1<<62 {
		*c = count(f)
		return nil
	}
	*c = unreadable
	return nil
}

// int is the figure for a Usage (nil: not reported).
func (c *count) int() *int64 {
	if c == nil {
		return nil
	}
	n := int64(*c)
	return &n
}

// usd is a cost as an agent printed it: one encoding/json cannot store
// (1e400, a string) is NaN, which Usage.Range drops, never a made-up 0;
// -0 is 0.
type usd float64

func (u *usd) UnmarshalJSON(b []byte) error {
	s := string(b)
	if s == "null" {
		return nil
	}
	f, err := strconv.ParseFloat(s, 64)
	switch {
	case err != nil || b[0] == '"':
		f = math.NaN()
	case f == 0:
		f = 0
	}
	*u = usd(f)
	return nil
}

func (u *usd) float() *float64 {
	if u == nil {
		return nil
	}
	f := float64(*u)
	return &f
}
