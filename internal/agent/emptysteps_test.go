package agent

import (
	"strings"
	"testing"
)

// opencode 1.18.33's lines against the agent matrix's redirect case (an
// API answering 200 with an HTML page): empty steps, for ever.
const (
	ocStart      = `{"type":"step_start","timestamp":1795824086801,"sessionID":"ses_1","part":{"id":"prt_1","messageID":"msg_1","sessionID":"ses_1","snapshot":"a12e","type":"step-start"}}`
	ocEmptyStep  = `{"type":"step_finish","timestamp":1795824087747,"sessionID":"ses_1","part":{"id":"prt_2","reason":"unknown","snapshot":"a12e","messageID":"msg_1","sessionID":"ses_1","type":"step-finish","tokens":{"input":0,"output":0,"reasoning":0,"cache":{"write":0,"read":0}},"cost":0}}`
	ocToolStep   = `{"type":"step_finish","timestamp":1795672991605,"sessionID":"ses_1","part":{"id":"prt_3","reason":"tool-calls","snapshot":"1792","messageID":"msg_2","sessionID":"ses_1","type":"step-finish","tokens":{"total":1368,"input":320,"output":40,"reasoning":8,"cache":{"write":0,"read":1000}},"cost":0.00198}}`
	ocText       = `{"type":"text","timestamp":1,"sessionID":"ses_1","part":{"type":"text","text":"ok"}}`
	ocToolNested = `{"type":"tool_use","timestamp":2,"sessionID":"ses_1","part":{"type":"tool","tool":"write","state":{"status":"completed","input":{"filePath":"events.json","content":"` +
		`0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",` +
		`"sample":{"type":"step_start"}}}}}`
	ocLogLine    = `timestamp=2026-11-28T00:06:01.746Z level=INFO run=d7509094 message="llm runtime selected"`
	ocStepsWords = `3 model steps in a row answered nothing (step_finish reason "unknown", no tokens)`
)

func TestEmptySteps(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []string
		stops bool
	}{
		{"three empty steps, its log between", []string{ocStart, ocLogLine, ocEmptyStep, ocStart, ocEmptyStep, ocLogLine, ocStart, ocEmptyStep}, true},
		{"two", []string{ocStart, ocEmptyStep, ocStart, ocEmptyStep}, false},
		{"a step that worked between", []string{ocStart, ocEmptyStep, ocStart, ocEmptyStep, ocStart, ocToolStep, ocStart, ocEmptyStep}, false},
		{"text in a step without tokens", []string{ocStart, ocEmptyStep, ocStart, ocEmptyStep, ocStart, ocText, ocEmptyStep}, false},
		// an event's type leads its line: a step_start nested deep in a
		// tool's input is that tool call's content, not a new step
		{"a tool call holding a step_start object", []string{ocStart, ocToolNested, ocEmptyStep, ocStart, ocToolNested, ocEmptyStep, ocStart, ocToolNested, ocEmptyStep}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var e EmptySteps
			var n *Notice
			for _, l := range tc.lines {
				if got := e.Line([]byte(l)); got != nil {
					n = got
				}
			}
			if (n != nil) != tc.stops {
				t.Fatalf("notice %+v, want stop %v", n, tc.stops)
			}
			if n != nil && (!n.Stops() || n.Kind != "api_error" || !strings.HasPrefix(n.Why(), "opencode: "+ocStepsWords)) {
				t.Errorf("notice %+v: %s", n, n.Why())
			}
		})
	}
}
