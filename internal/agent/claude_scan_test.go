package agent

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/loopkit/loopkit/internal/record"
)

// sameAsDecoder checks that a line the scan reads gives what
// encoding/json gives: the scan may decline a line, never read it
// otherwise. Lines json rejects are not compared (the scan delimits
// without validating what it skips).
func sameAsDecoder(t *testing.T, line []byte) {
	t.Helper()
	line = bytes.TrimSpace(line)
	var fast claudeMsg
	if !scanClaude(line, &fast) || !json.Valid(line) {
		return
	}
	var slow claudeMsg
	if decodeLoose(line, &slow) != nil {
		t.Fatalf("the scan read a line the decoder refuses: %s", line)
	}
	if fast.Message != nil {
		for i := range fast.Message.Content {
			b := &fast.Message.Content[i]
			if b.textRaw != nil {
				_ = json.Unmarshal(b.textRaw, &b.Text)
			}
			if b.inputRaw != nil {
				b.Input = argsSummary(b.args())
			}
			if b.contentRaw != nil {
				b.Content = resultSummary(b.result())
			}
			b.textRaw, b.inputRaw, b.contentRaw = nil, nil, nil
		}
	}
	if !reflect.DeepEqual(fast, slow) {
		fj, _ := json.Marshal(fast)
		sj, _ := json.Marshal(slow)
		t.Fatalf("scan and decoder differ on %s:\nscan    %+v %s\ndecoder %+v %s", line, fast, fj, slow, sj)
	}
}

// TestScanMatchesDecoder: every line of the real Claude, Cursor and Amp
// captures and of the parser's fixtures, and lines made to trip the
// scan, read the same through the scan as through encoding/json; the
// bulk of a stream (assistant and user messages) takes the scan.
func TestScanMatchesDecoder(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(transcriptsDir, "*"))
	scanned := 0
	for _, f := range files {
		base := filepath.Base(f)
		if strings.HasSuffix(base, ".expect.json") || strings.HasSuffix(base, ".jqfile") || strings.HasSuffix(base, ".md") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			sameAsDecoder(t, sc.Bytes())
			var m claudeMsg
			if (strings.HasPrefix(base, "claude") || strings.HasPrefix(base, "cursor")) && scanClaude(bytes.TrimSpace(sc.Bytes()), &m) {
				scanned++
			}
		}
	}
	if scanned < 20 {
		t.Errorf("only %d lines of the real captures took the scan", scanned)
	}
	for _, l := range append(fullStream, scanTricks...) {
		sameAsDecoder(t, []byte(l))
	}
}

// scanTricks are lines where a scan that matched keys or types loosely
// would read something else than encoding/json.
var scanTricks = []string{
	`{"type":"assistant","Type":"user","message":{"content":[]}}`,
	`{"TYPE":"assistant","message":{"id":"m","content":[{"type":"text","text":"a"}]}}`,
	`{"type":"assistant","message":{"id":"m","content":[{"type":"text","text":"a"}]},"message":{"model":"x"}}`,
	`{"type":"assistant","message":{"id":"m","ID":"n","content":[{"type":"text","text":"a"}]}}`,
	`{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"t","Name":"Bash","input":{"a":1}}]}}`,
	`{"t\u0079pe":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":"x"}]}}`,
	`{"type":"assistant","message":{"id":5,"content":[{"type":"text","text":"a"}]}}`,
	`{"type":"assistant","message":{"id":"m","usage":{"input_tokens":"9","output_tokens":2},"content":[]}}`,
	`{"type":"assistant","message":{"id":"m","content":[{"type":"text","text":7}]}}`,
	`{"type":"assistant","message":{"id":"m","content":["x",{"type":"text","text":"a"}]}}`,
	`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"o\u00e9k"}],"is_error":1}]}}`,
	`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":{"content":"x"},"is_error":null}]}}`,
	`{"type":"assistant","parent_tool_use_id":7,"message":{"content":[]}}`,
	`{"type":"assistant","parent_tool_use_id":"","message":null,"session_id":"s\"q"}`,
	`{"type":"system","subtype":"init","model":"claude-x","session_id":"s"}`,
	`{"type":"system","subtype":"hook_response","output":"` + strings.Repeat("x\\\"", 3000) + `"}`,
	`{"type":"assistant","message":{"id":"m","content":[{"type":"text","text":"caf\u00e9 \"q\""}]},"error":"rate_limit"}`,
	`{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"t","name":"W","input":"  {\"a\" : 1}"}]}}`,
	` {"type" : "assistant" , "message" : { "id" : "m" , "content" : [ { "type" : "text" , "text" : "a" } ] } } `,
}

// FuzzClaudeScan: on any line json accepts, the scan reads what the
// decoder reads, or declines.
func FuzzClaudeScan(f *testing.F) {
	for _, l := range append(fullStream, scanTricks...) {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, line []byte) { sameAsDecoder(t, line) })
}

// headOfString unescapes only a summary's worth of a long string: the
// summary is the one the whole string gives.
func FuzzHeadOfString(f *testing.F) {
	for _, s := range []string{strings.Repeat("x", 5000), strings.Repeat("é\\n\\u00e9\\ud83d\\ude00", 400), strings.Repeat("\\\"", 3000), "short", "a\xffb" + strings.Repeat("\xe2\x82", 300)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lit := []byte(`"` + s + `"`)
		var whole string
		if json.Unmarshal(lit, &whole) != nil {
			return
		}
		if got, want := summary(headOfString(lit)), summary(whole); got != want {
			t.Fatalf("summary of %q:\n got %q\nwant %q", s, got, want)
		}
	})
}

// compactJSON squeezes only a summary's worth of a long value.
func FuzzCompactJSON(f *testing.F) {
	f.Add(`{"file_path": "a.go", "content": "` + strings.Repeat("x \\n é", 900) + `"}`)
	f.Add(`[ 1, 2, ` + strings.Repeat(`"\xe2\x82"`, 2000) + `]`)
	f.Fuzz(func(t *testing.T, s string) {
		raw := bytes.TrimSpace([]byte(s))
		if len(raw) <= headBytes || raw[0] == '"' || !json.Valid(raw) {
			return // short values and strings take other paths
		}
		want := record.Text(squeeze(raw[:headBytes], headBytes))
		if got := compactJSON(raw); summary(got) != summary(want) {
			t.Fatalf("summary of %q:\n got %q\nwant %q", s, summary(got), summary(want))
		}
	})
}
