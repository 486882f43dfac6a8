package agent

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// transcriptsDir holds real agent output written by other people (see its
// README for each file's source); each has an .expect.json computed by the
// jq filter its .jqfile names, independently of this parser.
const transcriptsDir = "../../testdata/agents"

type expectation struct {
	Format        string   `json:"format"`
	Input         *int64   `json:"input"`
	Output        *int64   `json:"output"`
	CacheRead     *int64   `json:"cache_read"`
	CacheCreation *int64   `json:"cache_creation"`
	Cost          *float64 `json:"cost"`
	ToolCalls     int      `json:"tool_calls"`
	FinalMessage  string   `json:"final_message"`
	SessionID     string   `json:"session_id"`
	ErrorKind     *string  `json:"error_kind"`
}

// transcripts lists (transcript, expectation) path pairs.
func transcripts(t *testing.T) [][2]string {
	expects, _ := filepath.Glob(filepath.Join(transcriptsDir, "*.expect.json"))
	var out [][2]string
	for _, e := range expects {
		base := strings.TrimSuffix(e, ".expect.json")
		matches, _ := filepath.Glob(base + ".*")
		for _, m := range matches {
			if m != e && !strings.HasSuffix(m, ".jqfile") {
				out = append(out, [2]string{m, e})
			}
		}
	}
	if len(out) < 10 {
		t.Fatalf("only %d transcripts in %s", len(out), transcriptsDir)
	}
	return out
}

// pendingTranscripts are real captures whose figures the parser does not
// give yet, with the reason: checked, and failing once they hold so that
// the mark goes.
var pendingTranscripts = map[string]string{
	"claude-2.1.330-matrix-rate-limit.ndjson": stoppedAtNotice,
}

const stoppedAtNotice = "a stream loop-step stopped at the CLI's first retry notice (Claude's api_retry) reads as no error: only loop-step's live watch classifies it (issue 23, item 3)"

func TestRealTranscripts(t *testing.T) {
	for _, tr := range transcripts(t) {
		t.Run(filepath.Base(tr[0]), func(t *testing.T) {
			var want expectation
			data, err := os.ReadFile(tr[1])
			if err != nil || json.Unmarshal(data, &want) != nil {
				t.Fatalf("expectation %s: %v", tr[1], err)
			}
			res := parsePath(t, tr[0], FormatAuto)
			got := expectation{Format: res.Format, Input: res.InputTokens, Output: res.OutputTokens, CacheRead: res.CacheReadTokens,
				CacheCreation: res.CacheCreationTokens, Cost: res.CostUSD, ToolCalls: len(res.ToolCalls), FinalMessage: res.FinalMessage, SessionID: res.SessionID}
			if res.ErrorKind != "" {
				got.ErrorKind = &res.ErrorKind
			}
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(want)
			reason, pending := pendingTranscripts[filepath.Base(tr[0])]
			switch {
			case !bytes.Equal(g, w) && pending:
				t.Skipf("expected failure (%s):\n got %s\nwant %s", reason, g, w)
			case !bytes.Equal(g, w):
				t.Errorf("\n got %s\nwant %s", g, w)
			case pending:
				t.Errorf("holds now: drop its mark in pendingTranscripts (%s)", reason)
			}
		})
	}
}

// The expectations are what their jq filters compute from the transcripts,
// so nobody can make the test pass by editing them to the parser's output.
func TestTranscriptExpectationsFromJQ(t *testing.T) {
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("jq not installed")
	}
	for _, tr := range transcripts(t) {
		jqfile, err := os.ReadFile(strings.TrimSuffix(tr[1], ".expect.json") + ".jqfile")
		if err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("jq", "-s", "-f", filepath.Join(transcriptsDir, strings.TrimSpace(string(jqfile))), tr[0]).Output()
		if err != nil {
			t.Fatalf("jq on %s: %v", tr[0], err)
		}
		var a, b any
		want, _ := os.ReadFile(tr[1])
		json.Unmarshal(out, &a)
		json.Unmarshal(want, &b)
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if !bytes.Equal(ja, jb) {
			t.Errorf("%s: jq gives %s, expectation says %s", tr[0], ja, jb)
		}
	}
}
