package agent

import (
	"bytes"
	"testing"
	"unicode/utf8"
)

// The parsers read bytes an agent printed: whatever they are, parsing must
// not fail or panic, and every text it keeps must be valid, bounded UTF-8.
func fuzzParser(f *testing.F, format string) {
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := Parse(bytes.NewReader(data), format, nil)
		if err != nil {
			t.Fatalf("parse: %v", err)
		}
		for _, tc := range res.ToolCalls {
			for _, s := range []string{tc.ToolName, tc.ArgumentsSummary, tc.ResultSummary} {
				if !utf8.ValidString(s) {
					t.Fatalf("invalid UTF-8 in tool call %+v", tc)
				}
			}
			if utf8.RuneCountInString(tc.ArgumentsSummary) > 200 || utf8.RuneCountInString(tc.ResultSummary) > 200 {
				t.Fatalf("summary over 200 characters: %+v", tc)
			}
		}
		if !utf8.ValidString(res.FinalMessage) {
			t.Fatalf("invalid UTF-8 final message %q", res.FinalMessage)
		}
	})
}

func FuzzClaude(f *testing.F) {
	f.Add([]byte(lines(fullStream...)))
	f.Add([]byte("[" + ccInit + "," + ccResult + "]"))
	fuzzParser(f, FormatClaude)
}

func FuzzCodex(f *testing.F) {
	f.Add([]byte(`{"type":"turn.completed","usage":{"input_tokens":5,"cached_input_tokens":2,"output_tokens":1}}` + "\n"))
	fuzzParser(f, FormatCodex)
}

func FuzzDetect(f *testing.F) {
	f.Add([]byte("banner\n" + ccInit + "\n"))
	fuzzParser(f, FormatAuto)
}

func FuzzGemini(f *testing.F) {
	f.Add([]byte(`{"type":"init","session_id":"g","model":"m"}` + "\n" + `{"type":"message","role":"assistant","content":"hi","delta":true}` + "\n" +
		`{"type":"tool_use","tool_name":"read_file","tool_id":"t1","parameters":{"path":"a"}}` + "\n" + `{"type":"tool_result","tool_id":"t1","status":"success","output":"x"}` + "\n" +
		`{"type":"result","status":"success","stats":{"input_tokens":5,"output_tokens":1,"cached":2}}` + "\n"))
	f.Add([]byte("{\n  \"response\": \"hi\",\n  \"stats\": {\"models\": {\"m\": {\"tokens\": {\"prompt\": 5, \"candidates\": 1, \"cached\": 2}}}}\n}\n"))
	fuzzParser(f, FormatGemini)
}

func FuzzOpencode(f *testing.F) {
	f.Add([]byte(`{"type":"step_start","sessionID":"s","part":{"type":"step-start"}}` + "\n" + `{"type":"text","sessionID":"s","part":{"type":"text","text":"hi"}}` + "\n" +
		`{"type":"tool_use","sessionID":"s","part":{"type":"tool","callID":"c","tool":"bash","state":{"status":"completed","input":{"command":"ls"},"output":"a"}}}` + "\n" +
		`{"type":"step_finish","sessionID":"s","part":{"type":"step-finish","cost":0.1,"tokens":{"input":1,"output":2,"reasoning":0,"cache":{"read":3,"write":4}}}}` + "\n"))
	fuzzParser(f, FormatOpencode)
}

func FuzzCopilot(f *testing.F) {
	f.Add([]byte(`{"type":"tool.execution_start","data":{"toolCallId":"c","toolName":"bash","arguments":{"command":"ls"}}}` + "\n" +
		`{"type":"tool.execution_complete","data":{"toolCallId":"c","success":true,"result":{"content":"a"}}}` + "\n" +
		`{"type":"assistant.message","data":{"messageId":"m","content":"done","toolRequests":[],"outputTokens":3}}` + "\n" + `{"type":"result","sessionId":"s","exitCode":0}` + "\n"))
	fuzzParser(f, FormatCopilot)
}

func FuzzCursor(f *testing.F) {
	f.Add([]byte(`{"type":"tool_call","subtype":"completed","call_id":"c","tool_call":{"readToolCall":{"args":{"path":"a"},"result":{"success":{"content":"x"}}}}}` + "\n"))
	fuzzParser(f, FormatCursor)
}
