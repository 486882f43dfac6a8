package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
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

// Input is what loop-record reads from stdin: a validation and/or a step.
type Input struct {
	Validation *Validation
	Step       *Step
	// Lines are the raw records, kept for the idempotence digest.
	Lines [][]byte
}

// DecodeInput parses NDJSON records from data. Every line must be a whole
// JSON object of a known type; a final line without a newline is refused as
// truncated, since a writer killed mid-line would otherwise look complete.
func DecodeInput(data []byte) (*Input, error) {
	in := &Input{}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &InputError{Line: 1, Msg: "no records on stdin (expected a validation or step record)"}
	}
	lineNo := 0
	for len(data) > 0 {
		lineNo++
		nl := bytes.IndexByte(data, '\n')
		var line []byte
		if nl < 0 {
			line, data = data, nil
			if len(bytes.TrimSpace(line)) > 0 && !json.Valid(bytes.TrimSpace(line)) {
				return nil, &InputError{Line: lineNo, Msg: "truncated line (no newline and not complete JSON)"}
			}
		} else {
			line, data = data[:nl], data[nl+1:]
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if err := in.add(lineNo, line); err != nil {
			return nil, err
		}
	}
	if in.Validation == nil && in.Step == nil {
		return nil, &InputError{Line: lineNo, Msg: "no records on stdin (expected a validation or step record)"}
	}
	return in, nil
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
		in.Validation = v
	case TypeStep:
		if in.Step != nil {
			return &InputError{Line: lineNo, Msg: "a second step record (one iteration takes one)"}
		}
		s := &Step{}
		if err := json.Unmarshal(line, s); err != nil {
			return jsonError(lineNo, err)
		}
		in.Step = s
	default:
		return &InputError{Line: lineNo, Field: "type", Msg: fmt.Sprintf("unknown record type %q (expected \"validation\" or \"step\")", *head.Type)}
	}
	in.Lines = append(in.Lines, append([]byte(nil), line...))
	return nil
}

func jsonError(lineNo int, err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field == "" {
		return &InputError{Line: lineNo, Msg: fmt.Sprintf("not a JSON object (got JSON %s)", te.Value)}
	}
	if errors.As(err, &te) {
		return &InputError{Line: lineNo, Field: te.Field, Msg: fmt.Sprintf("wrong type: got JSON %s, want %s", te.Value, te.Type)}
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &InputError{Line: lineNo, Msg: fmt.Sprintf("not JSON: %v (at byte %d)", se, se.Offset)}
	}
	return &InputError{Line: lineNo, Msg: fmt.Sprintf("not a JSON object: %v", err)}
}
