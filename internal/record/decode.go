package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// InputError is bad input data: it names the line and, when known, the field.
type InputError struct {
	Line  int
	Field string
	Msg   string
}

func (e *InputError) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("line %d: field %q: %s", e.Line, e.Field, e.Msg)
	}
	return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
}

// Input is what loop-record reads from stdin: a validation and/or a step,
// and the review of that step (a step record with a review_verdict).
type Input struct {
	Validation *Validation
	Step       *Step
	Review     *Step
	// Lines are the raw records, kept for the idempotence digest.
	Lines [][]byte
	// ValidationLine, StepLine and ReviewLine are where each record was
	// read, for errors.
	ValidationLine, StepLine, ReviewLine int
	// ReviewRaw is the review's line (its attempt's digest).
	ReviewRaw []byte
}

// MaxLineBytes is the longest input record line read: inline text is
// capped at 1 MiB, which JSON escaping can grow sixfold, plus the rest.
const MaxLineBytes = 16 << 20

// DecodeInput parses NDJSON records from data (see ReadInput).
func DecodeInput(data []byte) (*Input, error) {
	return ReadInput(bytes.NewReader(data))
}

// ReadInput parses NDJSON records from r, one line at a time, each at most
// MaxLineBytes. Every line must be a whole JSON object of a known type
// whose values make sense; a final line without a newline is refused as
// truncated, since a writer killed mid-line would otherwise look complete.
func ReadInput(r io.Reader) (*Input, error) {
	in := &Input{}
	br := bufio.NewReaderSize(r, 64<<10)
	lineNo := 0
	for {
		line, complete, err := readLine(br, MaxLineBytes)
		if len(line) == 0 && err == io.EOF {
			break
		}
		lineNo++
		if errors.Is(err, errLong) {
			return nil, &InputError{Line: lineNo, Msg: fmt.Sprintf("longer than %d bytes, the reader's limit", MaxLineBytes)}
		}
		if err != nil && err != io.EOF {
			return nil, err
		}
		line = bytes.TrimSpace(line)
		if !complete && len(line) > 0 && !json.Valid(line) {
			return nil, &InputError{Line: lineNo, Msg: "truncated line (no newline and not complete JSON)"}
		}
		if len(line) > 0 {
			if err := in.add(lineNo, line); err != nil {
				return nil, err
			}
		}
		if err == io.EOF {
			break
		}
	}
	if in.Validation == nil && in.Step == nil && in.Review == nil {
		return nil, &InputError{Line: max(lineNo, 1), Msg: "no records on stdin (expected a validation or step record)"}
	}
	switch {
	case in.Review != nil && in.Step == nil && in.Validation == nil:
		// alone, a review is a step like another (an attempt, say)
		in.Step, in.StepLine, in.Review, in.ReviewLine, in.ReviewRaw = in.Review, in.ReviewLine, nil, 0, nil
	case in.Review != nil && in.Step == nil:
		return nil, &InputError{Line: in.ReviewLine, Msg: "a review (a step record with a review_verdict) without the step it reviews"}
	}
	return in, nil
}

var errLong = errors.New("line too long")

// readLine reads one line (without its newline) of at most limit bytes;
// complete is false for a last line without a newline.
func readLine(br *bufio.Reader, limit int) (line []byte, complete bool, err error) {
	for {
		frag, err := br.ReadSlice('\n')
		if len(line)+len(frag) > limit+1 {
			return nil, false, errLong
		}
		line = append(line, frag...)
		switch {
		case err == nil:
			return line[:len(line)-1], true, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		}
		return line, false, err
	}
}

func (in *Input) add(lineNo int, line []byte) error {
	var head struct {
		Type *string `json:"type"`
	}
	if err := json.Unmarshal(line, &head); err != nil {
		return jsonError(lineNo, err)
	}
	if head.Type == nil {
		return &InputError{Line: lineNo, Field: "type", Msg: "missing (expected \"validation\" or \"step\")"}
	}
	switch *head.Type {
	case TypeValidation:
		if in.Validation != nil {
			return &InputError{Line: lineNo, Msg: "a second validation record (one iteration takes one)"}
		}
		v := &Validation{}
		if err := json.Unmarshal(line, v); err != nil {
			return jsonError(lineNo, err)
		}
		if v.ExitCode == nil {
			return &InputError{Line: lineNo, Field: "exit_code", Msg: "missing"}
		}
		if err := v.check(); err != nil {
			err.Line = lineNo
			return err
		}
		in.Validation, in.ValidationLine = v, lineNo
	case TypeStep:
		s := &Step{}
		if err := json.Unmarshal(line, s); err != nil {
			return jsonError(lineNo, err)
		}
		if err := s.check(); err != nil {
			err.Line = lineNo
			return err
		}
		switch {
		case s.ReviewVerdict != nil && in.Review != nil:
			return &InputError{Line: lineNo, Msg: "a second review (one iteration takes one)"}
		case s.ReviewVerdict != nil:
			in.Review, in.ReviewLine, in.ReviewRaw = s, lineNo, append([]byte(nil), line...)
		case in.Step != nil:
			return &InputError{Line: lineNo, Msg: "a second step record (one iteration takes one)"}
		default:
			in.Step, in.StepLine = s, lineNo
		}
	default:
		return &InputError{Line: lineNo, Field: "type", Msg: fmt.Sprintf("unknown record type %q (expected \"validation\" or \"step\")", *head.Type)}
	}
	in.Lines = append(in.Lines, append([]byte(nil), line...))
	return nil
}

func jsonError(lineNo int, err error) error {
	field, msg := JSONProblem(err)
	return &InputError{Line: lineNo, Field: field, Msg: msg}
}

// JSONProblem says what decoding a record found wrong in JSON's terms (a
// field of the wrong type, not a JSON object) rather than the Go types it
// was read into.
func JSONProblem(err error) (field, msg string) {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field == "" {
		return "", fmt.Sprintf("not a JSON object (got JSON %s)", te.Value)
	}
	if errors.As(err, &te) {
		return te.Field, fmt.Sprintf("wrong type: got JSON %s, want %s", te.Value, te.Type)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return "", fmt.Sprintf("not JSON: %v (at byte %d)", se, se.Offset)
	}
	return "", fmt.Sprintf("not a JSON object: %v", err)
}
