package agent

import (
	"bytes"
	"encoding/json"
)

// Activity classifies one line an agent printed, for loop-step's hang
// guards: progress unless it only says the agent is retrying without
// counting its tries (Codex's "Reconnecting... waiting for network", plain
// "Retrying" lines); result when it is a closing result line. A retry the
// CLI numbers (Claude's api_retry, "Reconnecting... 2/5", Gemini's
// "Attempt 3 failed") is work: the CLI gives up by itself.
func Activity(line []byte) (progress, result bool) {
	b := bytes.TrimSpace(line)
	if len(b) == 0 {
		return false, false
	}
	if b[0] != '{' {
		return !IsRetryNotice(string(b)) || noticeProgress(b), false
	}
	typ, _, ok := typePrefix(b)
	if !ok {
		return true, false
	}
	switch string(typ) {
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
		if ev.Subtype == "api_retry" || IsRetryNotice(ev.Message) {
			return noticeProgress(b), false
		}
	}
	return true, false
}
