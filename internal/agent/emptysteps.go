package agent

import (
	"bytes"
	"fmt"

	"github.com/loopkit/loopkit/internal/record"
)

// maxEmptySteps is how many model steps in a row may answer nothing
// before the agent is stopped.
const maxEmptySteps = 3

// EmptySteps watches opencode's stream for model steps that answered
// nothing: a step_finish for reason "unknown" with no token, no text and
// no tool call since its step_start. opencode 1.18.33 starts the next such
// step at once, for ever: pointed at an API that answers 200 with an HTML
// page (a captive portal, a proxy's sign-in) it made 263 requests in 5
// minutes, every line of them progress to --idle-timeout. The zero value
// is ready; it is not safe for concurrent use.
type EmptySteps struct {
	n       int
	content bool // a line of the current step said something
}

// typeWindow is how far into a line its event's type is looked for.
const typeWindow = 256

var (
	opencodeStepStart  = []byte(`"type":"step_start"`)
	opencodeStepFinish = []byte(`"type":"step_finish"`)
)

// Line reads one line of the agent's stdout; it returns the notice that
// stops the agent once maxEmptySteps steps in a row were empty, else nil.
func (e *EmptySteps) Line(line []byte) *Notice {
	// an event's type is near its start (opencode writes it first): the
	// rest of a long line, a tool's input or a file, is not searched, which
	// cost every agent's step a second of CPU on a 200 MB stream
	head := line[:min(len(line), typeWindow)]
	switch {
	case bytes.Contains(head, opencodeStepStart):
		e.content = false
		return nil
	case !bytes.Contains(head, opencodeStepFinish):
		// an event of its stream (text, tool_use, error); not a line of
		// its log, which --print-logs puts on stderr beside it
		if bytes.HasPrefix(bytes.TrimSpace(line), []byte(`{"type":`)) {
			e.content = true
		}
		return nil
	}
	var ev struct {
		Part struct {
			Reason string `json:"reason"`
			Tokens *struct {
				Input, Output, Reasoning float64
				Cache                    struct{ Read, Write float64 }
			} `json:"tokens"`
		} `json:"part"`
	}
	if decodeLoose(bytes.TrimSpace(line), &ev) != nil {
		return nil
	}
	p := ev.Part
	empty := !e.content && (p.Reason == "unknown" || p.Reason == "") &&
		(p.Tokens == nil || p.Tokens.Input+p.Tokens.Output+p.Tokens.Reasoning+p.Tokens.Cache.Read+p.Tokens.Cache.Write == 0)
	e.content = false
	if !empty {
		e.n = 0
		return nil
	}
	if e.n++; e.n < maxEmptySteps {
		return nil
	}
	words := fmt.Sprintf("%d model steps in a row answered nothing (step_finish reason %q, no tokens): the API returned no model output", e.n, p.Reason)
	return &Notice{Agent: "opencode", Kind: record.ErrorKindAPI, Words: words, Line: string(line), Halt: true}
}
