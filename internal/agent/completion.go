package agent

import "strings"

// DefaultMarker is bin/loop's completion marker.
const DefaultMarker = "<promise>COMPLETE</promise>"

// Completion modes.
const (
	ModeTrailing = "trailing" // the last non-empty line, trimmed, is the marker
	ModeExact    = "exact"    // the whole message, trimmed, is the marker
)

// Completion judges the agent's final message: completed when the marker is
// where mode accepts it, malformed when the marker appears but not there
// (a malformed completion marker).
func Completion(final, marker, mode string) (completed, malformed bool) {
	if marker == "" {
		return false, false
	}
	switch mode {
	case ModeExact:
		completed = strings.TrimSpace(final) == marker
	default:
		completed = strings.TrimSpace(lastLine(final)) == marker
	}
	return completed, !completed && strings.Contains(final, marker)
}

// lastLine is the last line of s holding anything but whitespace.
func lastLine(s string) string {
	s = strings.TrimRight(s, " \t\r\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
