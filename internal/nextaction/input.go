package nextaction

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
)

// Lookback is how many of the log's last iterations a decision reads at
// least: enough for the streak and window rules, O(1) in the run's length.
const Lookback = 10

// Settings keys the rules read from run.json (written by the driver).
const (
	KeyPrompt            = "prompt"
	KeyPromptCurrent     = "prompt_current" // a rewritten or resumed prompt, used instead of prompt
	KeyMaxIterations     = "max_iterations"
	KeyMaxCost           = "max_cost"
	KeyMaxTokens         = "max_tokens"
	KeyMaxAgentFailures  = "max_agent_failures"
	KeyRequireCompletion = "require_completion"
	KeyStuckAgent        = "stuck_agent"
	KeyResumedAfter      = "resumed_after" // the last iteration before the latest resume
	KeyCostWarned        = "cost_warned"   // set when StartWarning's warning was given
	keyAgent             = "agent"         // the agent's argv as a JSON list (drivesettings.AgentKey)
)

// Defaults of the settings above.
const (
	DefaultMaxIterations    = 10
	DefaultMaxAgentFailures = 3
)

// Input is everything a decision may read. Build it with Load, or by hand
// in tests.
type Input struct {
	Run *record.Run
	// Recent are the log's last iterations, oldest first (at most Lookback,
	// or more when a setting asks for a longer window).
	Recent []*record.IterationLog
	// Phases is what the reviewer and final verification rules read.
	Phases Phases
	// Attempt is the agent step just kept as an attempt instead of an
	// iteration (it could not work), nil when there is none.
	Attempt *record.Agent
	// Now is when the decision is made (the time guard reads it).
	Now time.Time
}

// Load reads run id's run.json and the end of its log.
func Load(st *store.Store, id string) (*Input, error) {
	run, err := st.ReadRun(id)
	if err != nil {
		return nil, err
	}
	in := &Input{Run: run, Now: time.Now()}
	n := max(Lookback, in.Int(KeyMaxAgentFailures, DefaultMaxAgentFailures))
	lines, err := store.TailLines(st.RunPath(id, store.IterationsFile), n)
	if err != nil {
		return nil, err
	}
	for _, line := range lines {
		it := &record.IterationLog{}
		if err := json.Unmarshal(line, it); err != nil || it.Iteration <= 0 {
			continue // not a commit; the next writer sets it aside
		}
		in.Recent = append(in.Recent, it)
	}
	if err := in.loadPhases(st, id); err != nil {
		return nil, err
	}
	return in, nil
}

// Last is the last recorded iteration, or nil.
func (in *Input) Last() *record.IterationLog {
	if len(in.Recent) == 0 {
		return nil
	}
	return in.Recent[len(in.Recent)-1]
}

// LastNumber is the last recorded iteration's number (0 before the first).
func (in *Input) LastNumber() int {
	if it := in.Last(); it != nil {
		return it.Iteration
	}
	return 0
}

// SinceResume are the recent iterations run after the latest resume: a
// person may have fixed the agent's login in between.
func (in *Input) SinceResume() []*record.IterationLog {
	after := in.Int(KeyResumedAfter, 0)
	for i, it := range in.Recent {
		if it.Iteration > after {
			return in.Recent[i:]
		}
	}
	return nil
}

// Setting is a stored setting, "" when unset.
func (in *Input) Setting(key string) string {
	if in.Run == nil {
		return ""
	}
	return in.Run.Settings[key]
}

// Int is a whole-number setting, def when unset or unreadable (settings are
// checked when the run is created).
func (in *Input) Int(key string, def int) int {
	if v, err := strconv.Atoi(in.Setting(key)); err == nil {
		return v
	}
	return def
}

// Float is a number setting and whether it is set.
func (in *Input) Float(key string) (float64, bool) {
	v, err := strconv.ParseFloat(in.Setting(key), 64)
	return v, err == nil
}

// Flag is a boolean setting ("1", "true", "yes").
func (in *Input) Flag(key string) bool {
	switch in.Setting(key) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// Prompt is the prompt template the next step runs with.
func (in *Input) Prompt() string {
	if p := in.Setting(KeyPromptCurrent); p != "" {
		return p
	}
	return in.Setting(KeyPrompt)
}
