// Package jqfilter compiles a --where or --jq expression once and runs it on
// each record, reporting which top-level fields the expression can read so
// callers decode only those.
package jqfilter

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/itchyny/gojq"

	"github.com/loopkit/loopkit/internal/quote"
)

// Filter is a compiled jq expression.
type Filter struct {
	Flag string // the option it came from, for messages
	Expr string
	code *gojq.Code
	// Fields are the top-level fields the expression reads when All is false;
	// a record decoded with only these gives the same results as a full one.
	Fields map[string]bool
	All    bool
}

// CompileError is a bad expression: gojq's message and, for a parse error,
// the byte offset in the expression.
type CompileError struct {
	Flag, Expr string
	Offset     int // -1 when gojq gives none
	Err        error
	Hint       string // the fix, for jq builtins this filter cannot offer
}

func (e *CompileError) Error() string {
	if e.Offset >= 0 {
		return fmt.Sprintf("%s %q: %v at offset %d", e.Flag, e.Expr, e.Err, e.Offset)
	}
	if e.Hint != "" {
		return fmt.Sprintf("%s %q: %v: %s", e.Flag, e.Expr, e.Err, e.Hint)
	}
	return fmt.Sprintf("%s %q: %v", e.Flag, e.Expr, e.Err)
}

// missing are jq builtins a jq user reaches for that a filter run on each
// record alone by gojq (which keeps no key order) does not have, and the fix.
var missing = []struct{ msg, hint string }{
	{"input(s)/0 is not allowed", "each record is filtered alone; to combine records pipe --json into jq -s"},
	{"input_filename/0", "each record is filtered alone; .run_id names its run"},
	{"input_line_number/0", "each record is filtered alone, with no line number"},
	{"keys_unsorted/0", "objects keep no key order here; use keys"},
}

func hint(err error) string {
	for _, m := range missing {
		if strings.Contains(err.Error(), m.msg) {
			return m.hint
		}
	}
	return ""
}

func (e *CompileError) Unwrap() error { return e.Err }

// Mode says how the results are used: Where only tests their truth, so a
// partly decoded record may flow to the output; Transform prints them.
type Mode int

const (
	Where Mode = iota
	Transform
)

// Compile parses and compiles expr once; flag names the option in errors.
func Compile(flag, expr string, mode Mode) (*Filter, error) {
	q, err := gojq.Parse(expr)
	if err != nil {
		off := -1
		var pe *gojq.ParseError
		if errors.As(err, &pe) {
			off = pe.Offset
		}
		return nil, &CompileError{Flag: flag, Expr: expr, Offset: off, Err: err}
	}
	code, err := gojq.Compile(q, gojq.WithEnvironLoader(os.Environ))
	if err != nil {
		return nil, &CompileError{Flag: flag, Expr: expr, Offset: -1, Err: err, Hint: hint(err)}
	}
	f := &Filter{Flag: flag, Expr: expr, code: code, Fields: map[string]bool{}}
	a := &analysis{fields: f.Fields}
	if emits := a.query(q, true); emits && mode == Transform {
		a.all = true
	}
	f.All = a.all
	return f, nil
}

// Each calls fn with every result of the expression on v and returns the
// first runtime error, as one line.
func (f *Filter) Each(v any, fn func(any) error) error {
	iter := f.code.Run(v)
	for {
		r, ok := iter.Next()
		if !ok {
			return nil
		}
		if err, isErr := r.(error); isErr {
			return runtimeError(err)
		}
		if err := fn(r); err != nil {
			return err
		}
	}
}

// Needs are the top-level fields the expression reads; all: it may read
// any (view.Filter).
func (f *Filter) Needs() (fields map[string]bool, all bool) { return f.Fields, f.All }

// String names the filter in messages: its option and expression.
func (f *Filter) String() string { return fmt.Sprintf("%s %q", f.Flag, f.Expr) }

// Match reports whether any result of the expression on v is truthy (jq's
// select(): neither false nor null).
func (f *Filter) Match(v any) (bool, error) {
	found := false
	stop := errors.New("stop")
	err := f.Each(v, func(r any) error {
		if r != nil && r != false {
			found = true
			return stop
		}
		return nil
	})
	if err == stop {
		err = nil
	}
	return found, err
}

func runtimeError(err error) error {
	var he *gojq.HaltError
	if errors.As(err, &he) {
		if he.Value() == nil {
			return fmt.Errorf("halted with exit code %d", he.ExitCode())
		}
		if s, ok := he.Value().(string); ok {
			return fmt.Errorf("halted: %s", s)
		}
	}
	return err
}

// Write prints one result like jq -c, or like jq -r when raw and it is a string.
func Write(w io.Writer, v any, raw bool) error {
	if s, ok := v.(string); ok && raw {
		if _, err := io.WriteString(w, s); err != nil {
			return err
		}
		_, err := io.WriteString(w, "\n")
		return err
	}
	b, err := gojq.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(quote.JSON(b), '\n'))
	return err
}
