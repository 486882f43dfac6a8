package nextaction

import (
	"encoding/json"
	"time"

	"github.com/loopkit/loopkit/internal/lazylog"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runconfig"
	"github.com/loopkit/loopkit/internal/store"
)

// Lookback is how many of the log's last iterations a decision reads at
// least: enough for the streak and window rules, O(1) in the run's length.
const Lookback = 10

// DefaultMaxIterations is max_iterations' default (runconfig's), for
// messages.
const DefaultMaxIterations = 10

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
	// Driver: the run's own driver asks, which gave the run every status
	// it has had but running and those a person gives (paused, canceled).
	Driver bool
	// GitStopped: the deciding process stopped its git (a record's git ran
	// past its limit, recorder.GitLimit), so it can record no more trees.
	GitStopped bool
	// Now is when the decision is made (the time guard reads it).
	Now time.Time
	// St is the store (Load sets it); Record is the run's writer, through
	// which the watchdog and rate-limit rules record what they decide: with
	// either nil, those rules say nothing (a reader's, a test's decision).
	St     *store.Store
	Record Recorder
	// Hook fires a run hook (the watchdog's); Log gets the rules' warnings.
	Hook func(event string, fields map[string]any)
	Log  lazylog.Logger

	rewrite *rewrite // the watchdog rule's, for the next iteration
	// exact: Recent are the log's last lines, none skipped; whole: and
	// they are the whole log (Load sets them).
	exact, whole bool
}

// Load reads run id's run.json and the end of its log.
func Load(st *store.Store, id string) (*Input, error) {
	run, err := st.ReadRun(id)
	if err != nil {
		return nil, err
	}
	return LoadWith(st, run)
}

// LoadWith is Load with run.json as run, which its writer has just written
// in this process: the file is not read and decoded again.
func LoadWith(st *store.Store, run *record.Run) (*Input, error) {
	id := run.RunID
	in := &Input{Run: run, Now: time.Now(), St: st}
	n := max(Lookback, in.Set().MaxAgentFailures)
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
	in.exact, in.whole = len(in.Recent) == len(lines), len(lines) < n
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
	after := in.Set().ResumedAfter
	for i, it := range in.Recent {
		if it.Iteration > after {
			return in.Recent[i:]
		}
	}
	return nil
}

// Set is the run's settings, typed (runconfig: defaults filled in).
func (in *Input) Set() *runconfig.Settings {
	if in.Run == nil {
		d := runconfig.Defaults()
		return &d
	}
	return &in.Run.Settings
}

// Prompt is the prompt template the next step runs with.
func (in *Input) Prompt() string {
	if p := in.Set().PromptCurrent; p != "" {
		return p
	}
	return in.Set().Prompt
}

// tail are the log's last k iterations when Load read them all (nil:
// not known), so that a rule reading fewer lines need not read them again.
func (in *Input) tail(k int) []*record.IterationLog {
	if !in.exact || (len(in.Recent) < k && !in.whole) {
		return nil
	}
	return append([]*record.IterationLog{}, in.Recent[max(len(in.Recent)-k, 0):]...)
}
