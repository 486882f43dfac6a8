package nextaction

import (
	"github.com/loopkit/loopkit/internal/merge"
	"github.com/loopkit/loopkit/internal/record"
)

// Merge brings the completed run's branch into its merge target
// (loop-drive merge); Extra holds target and strategy.
const Merge = "merge"

// MergeStrategy is the run's strategy: none when there is no target,
// the default when a target has no strategy.
func (in *Input) MergeStrategy() string {
	if in.Set().MergeTarget == "" || in.Set().RunBranch == "" {
		return merge.None
	}
	if s := in.Set().MergeStrategy; s != "" {
		return s
	}
	return merge.DefaultStrategy
}

// mergeRun: the run is done (as the completed rule sees it) and has a
// merge target: merge before it is marked completed, so that a merge that
// fails fails the run. A merge started but not ended (a driver killed
// during it) is run again; one that failed stops the run until a resume
// clears it.
func mergeRun(in *Input) (Action, bool) {
	if in.MergeStrategy() == merge.None || !completionDetected(in) || !accepted(in) {
		return Action{}, false
	}
	if m := in.Run.Merge; m != nil && m.Iteration == in.LastNumber() {
		switch m.Status {
		case record.MergeMerged:
			return Action{}, false
		case record.MergeFailed:
			return stop(record.RunFailed, "merge failed: "+m.Error), true
		}
	}
	return Action{Kind: Merge, Iteration: in.LastNumber(), Extra: map[string]string{
		"target": in.Set().MergeTarget, "strategy": in.MergeStrategy()}}, true
}
