package watchdog

import (
	"fmt"
	"strings"

	"github.com/loopkit/loopkit/internal/quote"
	"github.com/loopkit/loopkit/internal/record"
)

// advice is what the rewritten prompt asks of the agent for each signal.
var advice = map[string]string{
	VerificationFailed: "Try a different approach; do not repeat the change you made before, and read the failure message closely before editing.",
	NoProgress:         "Make a concrete change toward the task; do not end the turn without editing a file, and do not make the same change again.",
	RepeatedTask:       "Do not run the same commands again; use what they already told you and change the code.",
	MalformedComplete:  "Say the task is complete only when the validation passes, and put the completion marker exactly where it is expected (alone, as the last line).",
	Oscillation:        "Decide on one approach and keep it; do not undo the previous iteration's change unless you know why it was wrong.",
}

// heading is what a rewritten prompt's added section says of a signal.
var heading = map[string]string{
	VerificationFailed: "The same validation failure, again and again",
	NoProgress:         "No progress",
	RepeatedTask:       "The same tool calls, again",
	MalformedComplete:  "A completion claim that did not hold",
	Oscillation:        "An undone change",
}

// Section is what a prompt rewrite adds: the signals and their evidence,
// and what to do differently.
func Section(n int, sigs []record.Signal) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n\n## Watchdog note %d: the loop is not making progress\n\n", n)
	b.WriteString("An automatic check of the last iterations found:\n\n")
	for _, s := range sigs {
		// the evidence quotes the agent (a tool's name, a file's, a failure
		// line): on its bullet's line, so newlines in a name cannot add a
		// forged iteration entry or instructions to the next prompt
		fmt.Fprintf(&b, "- %s (`%s`): %s.\n  %s\n", heading[s.Name], s.Name, quote.Line(s.Evidence), advice[s.Name])
	}
	return b.String()
}

// Rewrite is the prompt with the watchdog's section added.
func Rewrite(prompt string, n int, sigs []record.Signal) string {
	return strings.TrimRight(prompt, "\n") + Section(n, sigs)
}

// Names lists the signals' names, comma-separated.
func Names(sigs []record.Signal) string {
	names := make([]string, len(sigs))
	for i, s := range sigs {
		names[i] = s.Name
	}
	return strings.Join(names, ",")
}
