package agent

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Describe turns one line of an agent's JSON stream into lines for a
// person watching it run: the agent's text, each tool call with its main
// argument, a failed tool's error and the result. Lines it has nothing to
// say about (deltas, tool results that worked, bookkeeping, retry notices,
// which loop-view tail says on stderr) give none. Each line is one line of at most width characters.
func Describe(line []byte, width int) []string {
	var ev struct {
		Type    string          `json:"type"`
		Subtype string          `json:"subtype"`
		Message json.RawMessage `json:"message"`
		Item    json.RawMessage `json:"item"`
		Error   json.RawMessage `json:"error"`
		// result lines (Claude, Cursor)
		Result  string `json:"result"`
		IsError bool   `json:"is_error"`
		Turns   int    `json:"num_turns"`
		Cost    *usd   `json:"total_cost_usd"`
		Model   string `json:"model"`
		// Gemini CLI's stream
		Role     string          `json:"role"`
		Content  json.RawMessage `json:"content"`
		Delta    bool            `json:"delta"`
		ToolName string          `json:"tool_name"`
		Params   json.RawMessage `json:"parameters"`
		Status   string          `json:"status"`
	}
	if decodeLoose(line, &ev) != nil {
		return nil
	}
	var out []string
	add := func(s string) {
		if s = oneLine(s); s != "" {
			out = append(out, cut(s, width))
		}
	}
	switch ev.Type {
	case "system":
		if ev.Subtype == "init" {
			add("session started" + parens(ev.Model))
		}
	case "assistant", "user":
		var m struct {
			Content []struct {
				Type    string          `json:"type"`
				Text    string          `json:"text"`
				Name    string          `json:"name"`
				Input   json.RawMessage `json:"input"`
				IsError bool            `json:"is_error"`
				Content json.RawMessage `json:"content"`
			} `json:"content"`
		}
		if decodeLoose(ev.Message, &m) != nil {
			return nil
		}
		for _, c := range m.Content {
			switch {
			case c.Type == "text" && ev.Type == "assistant":
				add(c.Text)
			case c.Type == "tool_use":
				add("→ " + c.Name + mainArg(c.Input))
			case c.Type == "tool_result" && c.IsError:
				add("tool error: " + textOf(c.Content))
			}
		}
	case "result":
		s := "result: " + ev.Subtype
		if ev.IsError {
			s = "result: error"
		}
		if ev.Turns > 0 {
			s += fmt.Sprintf(", %d turns", ev.Turns)
		}
		if c := ev.Cost.float(); c != nil && *c >= 0 && *c <= MaxCallCostUSD { // 1e400 is no $0.00
			s += fmt.Sprintf(", $%.2f", *c)
		}
		add(s)
	case "item.started", "item.completed":
		out = describeCodexItem(ev.Type, ev.Item, width)
	case "error":
		add("error: " + textOf(ev.Message))
	case "turn.failed":
		add("error: " + textOf(ev.Error))
	case "message": // Gemini CLI: whole messages only, not token deltas
		if ev.Role == "assistant" && !ev.Delta {
			add(textOf(ev.Content))
		}
	case "tool_use":
		add("→ " + ev.ToolName + mainArg(ev.Params))
	case "tool_result":
		if ev.Status == "error" {
			add("tool error")
		}
	}
	return out
}

// describeCodexItem describes one of Codex's items: its messages, the commands it
// runs (and how they failed), the files it changes.
func describeCodexItem(typ string, raw json.RawMessage, width int) []string {
	var it struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		Command  string `json:"command"`
		ExitCode *int   `json:"exit_code"`
		Changes  []struct {
			Path string `json:"path"`
		} `json:"changes"`
		Message string `json:"message"`
	}
	if decodeLoose(raw, &it) != nil {
		return nil
	}
	s := ""
	switch {
	case it.Type == "agent_message" && typ == "item.completed":
		s = it.Text
	case it.Type == "command_execution" && typ == "item.started":
		s = "→ shell: " + it.Command
	case it.Type == "command_execution" && it.ExitCode != nil && *it.ExitCode != 0:
		s = fmt.Sprintf("exit %d: %s", *it.ExitCode, it.Command)
	case it.Type == "file_change" && typ == "item.completed":
		var paths []string
		for _, c := range it.Changes {
			paths = append(paths, c.Path)
		}
		s = "→ edit: " + strings.Join(paths, ", ")
	case it.Type == "error":
		s = "error: " + it.Message
	}
	if s = oneLine(s); s == "" {
		return nil
	}
	return []string{cut(s, width)}
}

// mainArg is a tool call's telling argument (the command, the file, the
// pattern), else its arguments as compact JSON.
func mainArg(input json.RawMessage) string {
	var args map[string]json.RawMessage
	if json.Unmarshal(input, &args) != nil || len(args) == 0 {
		return ""
	}
	for _, k := range []string{"command", "file_path", "path", "pattern", "url", "query", "description", "prompt"} {
		if v, ok := args[k]; ok {
			var s string
			if json.Unmarshal(v, &s) == nil && s != "" {
				return ": " + s
			}
		}
	}
	return " " + compactJSON(input)
}

func parens(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

// oneLine folds a text's lines and runs of spaces into single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// cut shortens s to width characters, marking the cut with "…".
func cut(s string, width int) string {
	r := []rune(s)
	if width <= 0 || len(r) <= width {
		return s
	}
	return string(r[:width-1]) + "…"
}
