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
