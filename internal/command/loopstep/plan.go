package loopstep

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/plan"
	"github.com/loopkit/loopkit/internal/quote"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/safefile"
)

// planSection is what --plan adds to the prompt: where the plan is, how to
// mark progress in it, and its text as the step begins.
const planSection = "\n\n## Plan\n\nThe plan is %s. Work on the first task not ticked; when it is done and checked, tick its box (`- [x]`) in that file. Do not tick a task the checks do not pass.\n\n%s"

// planMissing replaces planSection when the plan could not be read as a
// run's step began: the agent (or a person) removed or replaced it.
const planMissing = "\n\n## Plan\n\nThe plan is %s, but it could not be read as this step began (%s). Restore it (it may have been deleted, moved or replaced), then work on its first task not ticked and tick its box (`- [x]`) once that task is done and checked.\n"

// reviewPlanSection shows a reviewer the plan as the step left it; the
// plan is the agent's to edit, so it is fenced, as the diff is.
const reviewPlanSection = "\n\n## Plan\n\nThe agent works through the plan %s, ticking a task's box once it is done and checked. The plan as the step left it:\n\n%smarkdown\n%s\n%s"

// reviewPlan is the reviewer's plan section for --plan (none without
// one); a plan that cannot be read is said so, and the review goes on.
func reviewPlan(env *cli.Env, path string) string {
	if path == "" {
		return ""
	}
	abs, err := filepath.Abs(path)
	if err == nil {
		var text string
		if text, err = readHead(abs); err == nil {
			text = strings.TrimRight(text, "\n")
			fence := record.Fence(text)
			return fmt.Sprintf(reviewPlanSection, abs, fence, text, fence)
		}
	}
	env.Log.Warn("plan not readable for the review", "err", pathError(err))
	return fmt.Sprintf("\n\n## Plan\n\nThe plan %s could not be read (%s).", path, quote.Line(pathError(err).Error()))
}

// planBefore counts the plan's boxes before the step and appends the plan
// to the prompt. A plan that cannot be read is a usage error, but in a
// run's step (inRun) it is what the agent left: the count before is
// unknown (known false) and the step goes on, so deleting the plan cannot
// end the run as loopkit's own failure.
func planBefore(env *cli.Env, path, prompt string, inRun bool) (string, plan.Tasks, string, bool, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", plan.Tasks{}, "", false, err
	}
	tasks, err := plan.CountFile(abs)
	if err != nil && inRun {
		env.Log.Warn("plan not readable before the step", "err", pathError(err))
		return prompt + fmt.Sprintf(planMissing, abs, quote.Line(pathError(err).Error())), plan.Tasks{}, abs, false, nil
	}
	if err != nil {
		return "", plan.Tasks{}, "", false, env.UsageError("--plan: %v", pathError(err))
	}
	text, _ := readHead(abs)
	return prompt + fmt.Sprintf(planSection, abs, strings.TrimRight(text, "\n")+"\n"), tasks, abs, true, nil
}

// planAfter fills the step record's task counts from the plan as the agent
// left it; a plan the agent deleted counts as unknown.
func (s *stepRun) planAfter(rec *record.Step) {
	if s.planPath == "" {
		return
	}
	if s.tasksKnown {
		before := s.tasksBefore.Done
		rec.TasksDoneBefore = &before
	}
	after, err := plan.CountFile(s.planPath)
	if err != nil {
		s.env.Log.Warn("plan not readable after the step", "err", pathError(err))
		return
	}
	rec.TasksDone, rec.TasksTotal = &after.Done, &after.Total
}

// readHead reads at most planQuoteBytes of the plan for the prompt.
func readHead(path string) (string, error) {
	f, err := safefile.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, planQuoteBytes+1))
	return record.HeadBytes(string(data), planQuoteBytes), err // not half a character at the cut
}

// planQuoteBytes bounds the plan text quoted into the prompt.
const planQuoteBytes = 64 << 10
