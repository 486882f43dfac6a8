package progress

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/loopkit/loopkit/internal/record"
)

// ErrTornTail is a final line without a newline that is not whole JSON.
var ErrTornTail = errors.New("truncated last line (no newline and not complete JSON)")

// ReadRecords reads NDJSON records (IterationLogs, as iterations.jsonl and
// `loop-view --json` hold them, or validation records from loop-validate)
// and returns the last keep of them as IterationLogs, oldest first, holding
// the fields the block shows (plus id, run_id and status). Memory
// stays bounded by keep, whatever the length of the stream.
//
// A validation record has no iteration number: it gets the one after the
// record before it (1 for the first). Step records carry no validation
// output and are skipped. Blank lines are skipped. A final line without a
// newline is used when it is whole JSON; otherwise ReadRecords returns the
// records before it together with an error wrapping ErrTornTail, so that a
// caller reading a live file may choose to ignore it. Any other bad line is
// a *record.InputError naming the line and field.
func ReadRecords(r io.Reader, keep int) ([]record.IterationLog, error) {
	br := bufio.NewReaderSize(r, 256<<10)
	ring := make([]record.IterationLog, 0, min(max(keep, 0), 1024))
	next, lineNo := 0, 0 // next: the number a validation record would get
	for {
		line, err := br.ReadBytes('\n')
		if err != nil && err != io.EOF {
			return nil, err
		}
		if len(line) == 0 && err == io.EOF {
			return ring, nil
		}
		lineNo++
		torn := err == io.EOF
		trimmed := bytes.TrimSpace(line)
		if torn && len(trimmed) > 0 && !json.Valid(trimmed) {
			return ring, fmt.Errorf("line %d: %w", lineNo, ErrTornTail)
		}
		if len(trimmed) > 0 {
			it, skip, derr := decodeLine(lineNo, trimmed, next+1)
			if derr != nil {
				return nil, derr
			}
			if !skip {
				next = it.Iteration
				ring = push(ring, it, keep)
			}
		}
		if torn {
			return ring, nil
		}
	}
}

// push appends it, dropping the oldest record once keep are held.
func push(ring []record.IterationLog, it record.IterationLog, keep int) []record.IterationLog {
	if keep <= 0 {
		return ring
	}
	if len(ring) == keep {
		copy(ring, ring[1:])
		ring = ring[:keep-1]
	}
	return append(ring, it)
}

// line holds what the block needs of either kind of record, so that each
// line is decoded once and the fields the block never shows are skipped.
type line struct {
	Type              *string  `json:"type"`
	ID                string   `json:"id"`
	RunID             string   `json:"run_id"`
	Iteration         *int     `json:"iteration"`
	Status            string   `json:"status"`
	ValidationCommand *string  `json:"validation_command"`
	Command           string   `json:"command"`
	ExitCode          *int     `json:"exit_code"`
	TimedOut          bool     `json:"timed_out"`
	Signal            *string  `json:"signal"`
	Error             *string  `json:"error"`
	Stdout            string   `json:"stdout"`
	Stderr            string   `json:"stderr"`
	DurationMs        int64    `json:"duration_ms"`
	FilesChanged      []string `json:"files_changed"`
	TasksDone         *int     `json:"tasks_done"`
	TasksTotal        *int     `json:"tasks_total"`
	PlanAdvanced      bool     `json:"plan_advanced_on_failure"`
	Agent             *struct {
		FinalMessage string `json:"final_message"`
	} `json:"agent"`
}

// decodeLine decodes one record; number is what a validation record gets.
// The IterationLog returned holds the fields the block shows.
func decodeLine(lineNo int, data []byte, number int) (it record.IterationLog, skip bool, err error) {
	if data[0] != '{' && json.Valid(data) {
		return it, false, &record.InputError{Line: lineNo, Msg: "not a JSON object (expected an IterationLog or a validation record)"}
	}
	var l line
	if err := json.Unmarshal(data, &l); err != nil {
		return it, false, lineError(lineNo, err)
	}
	it = record.IterationLog{
		ID: l.ID, RunID: l.RunID, Status: l.Status,
		TimedOut: l.TimedOut, Signal: l.Signal, Error: l.Error, Stdout: l.Stdout, Stderr: l.Stderr,
		DurationMs: l.DurationMs, FilesChanged: l.FilesChanged,
		TasksDone: l.TasksDone, TasksTotal: l.TasksTotal, PlanAdvancedOnFailure: l.PlanAdvanced,
	}
	if l.Agent != nil {
		it.Agent = &record.Agent{FinalMessage: l.Agent.FinalMessage}
	}
	switch {
	case l.Type == nil:
		if l.Iteration == nil {
			return it, false, &record.InputError{Line: lineNo, Field: "iteration", Msg: "missing (expected an IterationLog or a validation record)"}
		}
		// Every IterationLog has an exit code; a run's record (run.json, as
		// `loop-view runs --json` prints it) has an iteration but none, and
		// would otherwise be shown as an iteration that exited 0.
		if l.ExitCode == nil {
			return it, false, &record.InputError{Line: lineNo, Field: "exit_code", Msg: "missing (expected an IterationLog or a validation record)"}
		}
		// a final verification (loop-record verify) has both but a "command"
		if l.ValidationCommand == nil {
			return it, false, &record.InputError{Line: lineNo, Field: "validation_command", Msg: "missing (expected an IterationLog or a validation record)"}
		}
		it.Iteration, it.ExitCode, it.ValidationCommand = *l.Iteration, *l.ExitCode, *l.ValidationCommand
		return it, false, nil
	case *l.Type == record.TypeValidation:
		if l.ExitCode == nil {
			return it, false, &record.InputError{Line: lineNo, Field: "exit_code", Msg: "missing"}
		}
		// The exit code as loop-record would store it (-1 when it did not exit by itself).
		it.Iteration, it.ValidationCommand = number, l.Command
		it.Status, it.ExitCode = record.Outcome(*l.ExitCode, l.TimedOut, l.Signal, l.Error)
		return it, false, nil
	case *l.Type == record.TypeStep:
		return it, true, nil
	}
	return it, false, &record.InputError{Line: lineNo, Field: "type", Msg: fmt.Sprintf("unknown record type %q (expected an IterationLog or a validation record)", *l.Type)}
}

func lineError(lineNo int, err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return &record.InputError{Line: lineNo, Field: te.Field, Msg: fmt.Sprintf("wrong type: got JSON %s, want %s", te.Value, te.Type)}
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &record.InputError{Line: lineNo, Msg: fmt.Sprintf("not JSON: %v (at byte %d)", se, se.Offset)}
	}
	return &record.InputError{Line: lineNo, Msg: fmt.Sprintf("not a JSON object: %v", err)}
}
