// Package nextaction decides what the driver does next, from what the store
// holds durably (run.json and the log's last iterations), never from counters
// a driver keeps in memory: a driver killed and resumed decides the same way.
//
// A decision is the first rule that returns an action; other features add
// rules (and the driver a handler for a new action kind) without touching
// the ones here.
package nextaction

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/loopkit/loopkit/internal/quote"
)

// Action kinds the driver knows.
const (
	// Iterate runs iteration Iteration: agent step, validation, record.
	Iterate = "iterate"
	// Stop ends the driver: the run gets Status (unless it already has it)
	// with Reason, and the driver exits with Exit.
	Stop = "stop"
)

// Action is one decision. Extra holds what a rule's action kind needs
// beyond the common fields (a wait's seconds, a rewritten prompt's path).
type Action struct {
	Kind      string
	Iteration int    // Iterate: the iteration to run
	Prompt    string // Iterate: the prompt template to run it with
	Status    string // Stop: the run's final status
	Reason    string // Stop: why, in words a person acts on
	Exit      int    // Stop: the driver's exit status
	Rule      string // the rule that decided, for logs and tests
	Extra     map[string]string
}

// Write prints the action as key=value lines, one per field, in a fixed
// order: bash reads them with `IFS== read -r key value` and no eval. Values
// never contain a newline (turned into spaces here).
func (a Action) Write(w io.Writer) error {
	var b strings.Builder
	put := func(k, v string) {
		if v == "" {
			return
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(oneLine(v))
		b.WriteByte('\n')
	}
	put("action", a.Kind)
	if a.Kind == Iterate || a.Kind == Verify {
		put("iteration", fmt.Sprint(a.Iteration))
		put("prompt", a.Prompt)
	}
	if a.Kind == Stop {
		put("status", a.Status)
		put("exit", fmt.Sprint(a.Exit))
	}
	// the driver prints the reason, which may quote the agent or the
	// validation (a tool's name, the last line of its stderr): a control or
	// bidirectional character in it is written escaped, not sent to the terminal
	put("reason", quote.Line(oneLine(a.Reason)))
	put("rule", a.Rule)
	keys := make([]string, 0, len(a.Extra))
	for k := range a.Extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		put(k, a.Extra[k])
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == 0 {
			return ' '
		}
		return r
	}, s)
}
