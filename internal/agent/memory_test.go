package agent

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
)

// toolHeavy streams n Claude tool calls whose input and result are 4 KB
// each, generated on the fly so the stream itself is never in memory.
func toolHeavy(n int) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		big := strings.Repeat("x", 4096)
		fmt.Fprintln(pw, `{"type":"system","subtype":"init","session_id":"s","model":"claude-opus-4-7"}`)
		for i := 0; i < n; i++ {
			fmt.Fprintf(pw, `{"type":"assistant","message":{"id":"msg_%d","role":"assistant","content":[{"type":"tool_use","id":"toolu_%d","name":"Write","input":{"file_path":"f%d.go","content":"%s"}}],"usage":{"input_tokens":1,"output_tokens":1,"cache_read_input_tokens":1,"cache_creation_input_tokens":1}},"parent_tool_use_id":null,"session_id":"s"}`+"\n", i, i, i, big)
			fmt.Fprintf(pw, `{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_%d","type":"tool_result","content":"%s"}]},"parent_tool_use_id":null,"session_id":"s"}`+"\n", i, big)
		}
		fmt.Fprintln(pw, `{"type":"result","subtype":"success","is_error":false,"result":"done","session_id":"s","total_cost_usd":1}`)
		pw.Close()
	}()
	return pr
}

// What the parser keeps after 25,000 tool calls of 4 KB must stay small:
// summaries are copies, not slices of whole lines, and only
// --max-tool-calls calls are kept.
func TestParserLiveHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 200 MB")
	}
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	res, err := Parse(toolHeavy(25000), FormatAuto, nil)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	live := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("live heap after parsing: %.1f MiB; %d calls kept, %d dropped", float64(live)/(1<<20), len(res.ToolCalls), res.ToolCallsDropped)
	if live > 32<<20 {
		t.Errorf("live heap %.1f MiB after 25,000 4 KB tool calls, want at most 32 MiB", float64(live)/(1<<20))
	}
	if len(res.ToolCalls) != DefaultMaxToolCalls || res.ToolCallsDropped != 25000-DefaultMaxToolCalls {
		t.Errorf("kept %d dropped %d", len(res.ToolCalls), res.ToolCallsDropped)
	}
	runtime.KeepAlive(res)
}
