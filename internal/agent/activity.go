package agent

import (
	"bytes"
	"encoding/json"
)

// Activity classifies one line an agent printed, for loop-step's hang
// guards: progress unless it only says the agent is retrying (Codex's
// "Reconnecting..." error events, Claude's api_retry notices, plain
// "Retrying" lines); result when it is a closing result line.
func Activity(line []byte) (progress, result bool) {
	b := bytes.TrimSpace(line)
	if len(b) == 0 {
		return false, false
	}
	if b[0] != '{' {
		return !IsRetryNotice(string(b)), false
	}
	m := typePrefix().FindSubmatch(b)
	if m == nil {
		return true, false
	}
	switch string(m[1]) {
	case "result":
		return true, true
	case "error", "system":
		var ev struct {
			Subtype  string `json:"subtype"`
			Message  string `json:"message"`
			Severity string `json:"severity"`
		}
		// Lines longer than the classifier sees are cut: not JSON, progress.
		if json.Unmarshal(b, &ev) != nil {
			return true, false
		}
		return !(ev.Subtype == "api_retry" || IsRetryNotice(ev.Message)), false
	}
	return true, false
}
