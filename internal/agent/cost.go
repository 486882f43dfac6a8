package agent

import (
	"path/filepath"
	"strings"
)

// ReportsCost tells, from the agent program's name alone, whether its
// output carries a cost: known is false for a program loopkit does not
// recognise (a wrapper script, a plain-text agent), whose output must be
// seen first. Claude Code and opencode print dollars; Codex, Gemini CLI,
// Cursor, Amp and Copilot CLI print tokens at most.
func ReportsCost(binary string) (reports, known bool) {
	switch strings.ToLower(filepath.Base(binary)) {
	case "claude", "opencode":
		return true, true
	case "codex", "gemini", "cursor-agent", "cursor", "amp", "copilot":
		return false, true
	}
	return false, false
}
