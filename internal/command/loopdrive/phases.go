package loopdrive

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	agentout "github.com/loopkit/loopkit/internal/agent"
	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/queue"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runcheck"
	"github.com/loopkit/loopkit/internal/runconfig"
	"github.com/loopkit/loopkit/internal/runname"
	"github.com/loopkit/loopkit/internal/runstate"
	"github.com/loopkit/loopkit/internal/safefile"
	"github.com/loopkit/loopkit/internal/slots"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/userdir"
	"github.com/loopkit/loopkit/internal/worktree"
)

// PhaseOptions are the driver's SPEC and PLAN arguments; everything else
// that shapes the run is in its settings.
type PhaseOptions struct {
	Spec string
	Plan string
}

// namingTimeout bounds the naming agent's call.
const namingTimeout = 2 * time.Minute

// resolve finds a spec or plan argument: the path as given, else a bare
// name in dir, with ".md" added when that is what exists.
func resolve(what, arg, dir string) (string, error) {
	cands := []string{arg}
	if dir != "" && !strings.ContainsRune(arg, filepath.Separator) {
		cands = append(cands, filepath.Join(dir, arg), filepath.Join(dir, arg+".md"))
	}
	for _, c := range cands {
		if fi, err := os.Stat(c); err == nil && fi.Mode().IsRegular() {
			return filepath.Abs(c)
		}
	}
	where := ""
	if dir != "" {
		where = " (nor in " + dir + ")"
	}
	return "", fmt.Errorf("%s %s: no such file%s", what, arg, where)
}

// inputs finds and checks the spec, the plan and the prompt and fills
// their settings and run fields: a refusal comes before the start's notes
// and warnings (StartBounds), which would otherwise end the output.
func (h *holder) inputs(o *PhaseOptions, set *runconfig.Settings, run *record.Run) error {
	if o.Spec != "" {
		p, err := resolve("spec", o.Spec, set.SpecsDir)
		if err != nil {
			return cli.Usagef("%v", err)
		}
		run.SpecPath = &p
		if set.Prompt == "" {
			set.Prompt = p
			// as runcheck.Check checks a --prompt: else the run is made
			// and its agent paid for a task it gets empty or garbled
			if err := runcheck.PromptFile("spec", p); err != nil {
				return cli.Usagef("%v", err)
			}
		}
	}
	if o.Plan != "" {
		p, err := resolve("plan", o.Plan, set.PlansDir)
		if err != nil {
			return cli.Usagef("%v", err)
		}
		run.PlanPath, set.Plan = &p, p
		// a UTF-16 plan's boxes count 0/0, and it is quoted garbled
		if data, err := safefile.ReadFile(p, safefile.DocMax); err == nil {
			if why := runcheck.TextProblem(data); why != "" {
				return cli.Usagef("plan %s %s", p, why)
			}
		}
	}
	// the run's artifact (seed 003): the plan it works through, else its spec
	if run.ArtifactPath = run.PlanPath; run.ArtifactPath == nil {
		run.ArtifactPath = run.SpecPath
	}
	// a prompt too long for {prompt} would fail the first step, the run
	// made (and named: a paid call)
	if msg, w := runcheck.PromptArg(set); msg != "" {
		return cli.Usagef("%s", msg)
	} else if w != "" {
		h.emit("warning", w)
	}
	return nil
}

// phases names the run and passes the model to the agent.
func (h *holder) phases(set *runconfig.Settings, run *record.Run) error {
	if err := h.name(set, run); err != nil { // on the naming model, not model's
		return err
	}
	if set.Model != "" {
		argv, ok := agentout.WithModel(set.Agent, set.Model)
		if !ok {
			h.emit("note", fmt.Sprintf("model %s is not passed: %s takes no model flag loopkit knows (claude, codex, gemini and opencode do)", set.Model, set.Agent[0]))
		}
		set.Agent = argv
	}
	return nil
}

// name labels the run: --name, else the spec's title, or a naming agent's
// answer with the title as the fallback: with haiku, the run's own agent
// on the model run_naming_model; with agent, the command run_naming_model.
// A naming call that fails is a warning, never the end of the run.
func (h *holder) name(set *runconfig.Settings, run *record.Run) error {
	if set.Name != "" {
		run.Name, run.NameSource = set.Name, runname.SourceFlag
		return nil
	}
	run.Name, run.NameSource = runname.SpecSlug(set.Prompt), runname.SourceSpecSlug
	var argv []string
	switch set.NameSource {
	case runname.SourceSpecSlug:
		return nil
	case runname.SourceHaiku:
		model := set.NameModel
		if model == "" {
			model = runname.DefaultModel
		}
		var ok bool
		if argv, ok = agentout.WithModel(set.Agent, model); !ok {
			argv = set.Agent // it names the run on its own model
		}
	default:
		if set.NameModel == "" {
			return cli.Usagef("--name-source agent needs --name-model CMD (config run_naming_model)")
		}
		argv = []string{"sh", "-c", set.NameModel}
	}
	spec, _ := safefile.ReadFile(set.Prompt, safefile.DocMax)
	prompt := runname.Prompt(string(spec))
	a, err := runname.Ask(context.Background(), argv, prompt, set.Dir, namingTimeout)
	h.naming = namingStep(strings.Join(argv, " "), a, err) // recorded once the run exists
	if err != nil {
		h.env.Log.Warn("naming agent failed: the run is named after its spec", "err", err)
		return nil
	}
	run.Name, run.NameSource = a.Name, set.NameSource
	return nil
}

// makeWorktree creates the run's worktree when the run asks for one.
func (h *holder) makeWorktree(set *runconfig.Settings, name string) error {
	if !set.Worktree {
		return nil
	}
	top := store.GitTop(set.Dir)
	if top == "" {
		return cli.Usagef("--worktree needs a git repository (%s is not in one)", set.Dir)
	}
	c, err := worktree.Create(worktree.Spec{Top: top, Base: set.BaseBranch, Prefix: set.RunBranchPrefix,
		Slug: worktree.Slug(name), Template: set.WorktreePathTemplate})
	if err != nil {
		return cli.WithCode(3, err)
	}
	set.Dir, set.RunBranch, set.BaseBranch = c.Path, c.Branch, c.Base
	if c.Warning != "" {
		h.emit("warning", c.Warning)
	}
	return nil
}

// planInWorktree points a worktree run at its worktree's copy of a plan
// kept in the primary: the agent ticks the boxes in the tree it works in,
// and loop-step counts them there, not in the person's checkout. A plan
// the worktree lacks (not committed) or kept elsewhere stays as given.
func (h *holder) planInWorktree(set *runconfig.Settings, run *record.Run) {
	if !set.Worktree || set.Plan == "" {
		return
	}
	top, plan := store.GitTop(run.WorkspaceRoot), set.Plan
	if t, err := filepath.EvalSymlinks(top); err == nil {
		top = t
	}
	if p, err := filepath.EvalSymlinks(plan); err == nil {
		plan = p
	}
	if top == "" || !within(plan, top) {
		return
	}
	rel, _ := filepath.Rel(top, plan)
	in := filepath.Join(set.Dir, rel)
	if fi, err := os.Lstat(in); err != nil || !fi.Mode().IsRegular() {
		h.emit("warning", fmt.Sprintf("plan %s is not in the run's worktree (is it committed?): the agent is pointed at the primary's copy", set.Plan))
		return
	}
	// the worktree holds the committed plan: edits not committed are not in it
	if a, err := safefile.ReadFile(plan, safefile.DocMax); err == nil {
		if b, err := safefile.ReadFile(in, safefile.DocMax); err == nil && !bytes.Equal(a, b) {
			h.emit("warning", fmt.Sprintf("plan %s has changes not committed: the run works on the committed copy in its worktree, %s", set.Plan, in))
		}
	}
	orig := set.Plan
	set.Plan, run.PlanPath = in, &in
	if run.ArtifactPath != nil && *run.ArtifactPath == orig {
		run.ArtifactPath = &in
	}
}

// queueSlot waits for the run's turn and a slot; the run shows as queued
// meanwhile.
func (h *holder) queueSlot(set *runconfig.Settings, id string) error {
	max := set.MaxConcurrency
	run, err := h.st.ReadRun(id)
	if err != nil {
		return cli.Failf("%w", err)
	}
	dir, err := userdir.Runtime()
	if err == nil {
		err = slots.Prepare(dir, max)
	}
	if err != nil {
		return cli.Failf("concurrency slots: %w", err)
	}
	// a driver gone, or the run paused, while this one waits: stop waiting
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	go func() {
		for ctx.Err() == nil && os.Getppid() == h.parent {
			time.Sleep(time.Second)
			if r, err := h.st.ReadRun(id); err == nil && r.Status == record.RunPaused {
				cancel(runstate.ErrPausedWaiting)
				return
			}
		}
		cancel(nil)
	}()
	queued := false
	qc := queue.Config{
		Dir: dir, MaxConcurrency: max, MaxPerWorkspace: set.MaxRunsPerWorkspace,
		Workspace: run.WorkspaceRoot, Policy: set.QueuePolicy, RunID: id, Enqueued: run.CreatedAt,
	}
	if err := qc.Check(); err != nil {
		return cli.Usagef("%v", err)
	}
	qc.Waiting = func(runs []string, why string) {
		// marked before it says so: whoever reads the message and then
		// the run's status sees it queued
		if !queued {
			queued = true
			if _, err := h.door.Queue(id, "waiting for "+strings.Join(runs, ", ")); err != nil {
				h.env.Log.Warn("run not marked queued", "err", err)
			}
		}
		h.emit("note", "waiting for a free slot: "+slotHolders(runs)+"; "+why)
	}
	held, err := queue.Acquire(ctx, qc)
	switch {
	case errors.Is(context.Cause(ctx), runstate.ErrPausedWaiting):
		if held != nil {
			held.Release()
		}
		return runstate.ErrPausedWaiting
	case errors.Is(err, context.Canceled):
		return cli.Failf("the driver is gone")
	case err != nil: // the runtime directory's, not a setting's
		return cli.Failf("%v", err)
	}
	h.held = held
	if queued {
		h.emit("note", "got a slot") // started marks the run running again
	}
	return nil
}

// slotHolders says which runs hold the slots a driver waits for.
func slotHolders(runs []string) string {
	if len(runs) == 1 {
		return "run " + runs[0] + " holds it"
	}
	return "runs " + strings.Join(runs, ", ") + " hold them"
}
