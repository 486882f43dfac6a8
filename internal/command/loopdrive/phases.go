package loopdrive

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/finalverify"
	"github.com/loopkit/loopkit/internal/queue"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runname"
	"github.com/loopkit/loopkit/internal/safefile"
	"github.com/loopkit/loopkit/internal/slots"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/worktree"
)

// PhaseOptions are the driver's options for the spec and plan, the
// reviewer, the final verification, the run's name, its queue and its
// worktree (from the driver's command line: see readLine).
type PhaseOptions struct {
	Spec             string
	Plan             string
	SpecsDir         string
	PlansDir         string
	Reviewer         string
	ReviewMarker     string
	FinalVerify      []string
	FinalVerifyCmds  string
	NameSource       string
	NameModel        string
	MaxPerWorkspace  int
	QueuePolicy      string
	BaseBranch       string
	RunBranchPrefix  string
	WorktreeTemplate string
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

// phases fills the settings and run fields of --new's phase options.
func (h *holder) phases(o *PhaseOptions, set map[string]string, run *record.Run, agentName string) error {
	if o.Spec != "" {
		p, err := resolve("spec", o.Spec, o.SpecsDir)
		if err != nil {
			return cli.Usagef("%v", err)
		}
		run.SpecPath = &p
		if set["prompt"] == "" {
			set["prompt"] = p
		}
	}
	if o.Plan != "" {
		p, err := resolve("plan", o.Plan, o.PlansDir)
		if err != nil {
			return cli.Usagef("%v", err)
		}
		run.PlanPath, set["plan"] = &p, p
	}
	// the run's artifact (seed 003): the plan it works through, else its spec
	if run.ArtifactPath = run.PlanPath; run.ArtifactPath == nil {
		run.ArtifactPath = run.SpecPath
	}
	if o.Reviewer != "" {
		set["reviewer"] = o.Reviewer
	}
	if o.ReviewMarker != "" {
		set["review_marker"] = o.ReviewMarker
	}
	cmds := o.FinalVerify
	if len(cmds) == 0 {
		var err error
		if cmds, err = finalverify.Commands(o.FinalVerifyCmds); err != nil {
			return cli.Usagef("%v", err)
		}
	}
	if len(cmds) > 0 {
		data, _ := json.Marshal(cmds)
		set[finalverify.SettingKey] = string(data)
	}
	switch o.QueuePolicy {
	case queue.FIFO, queue.NewestFirst:
	default:
		return cli.Usagef("--queue-policy must be fifo or newest_first, got %q", o.QueuePolicy)
	}
	if o.MaxPerWorkspace < 0 {
		return cli.Usagef("--max-runs-per-workspace must be 0 (no limit) or more, got %d", o.MaxPerWorkspace)
	}
	return h.name(o, run, set["prompt"], set["dir"], agentName)
}

// name labels the run: --name, else the spec's title, or a naming agent's
// answer with the title as the fallback.
func (h *holder) name(o *PhaseOptions, run *record.Run, prompt, dir, given string) error {
	if given != "" {
		run.Name, run.NameSource = given, runname.SourceFlag
		return nil
	}
	switch o.NameSource {
	case runname.SourceSpecSlug, runname.SourceAgent:
	default:
		return cli.Usagef("--name-source must be spec_slug or agent, got %q", o.NameSource)
	}
	run.Name, run.NameSource = runname.SpecSlug(prompt), runname.SourceSpecSlug
	if o.NameSource != runname.SourceAgent {
		return nil
	}
	if o.NameModel == "" {
		return cli.Usagef("--name-source agent needs --name-model CMD (config run_naming_model)")
	}
	spec, _ := safefile.ReadFile(prompt, safefile.DocMax)
	a, err := runname.Ask(context.Background(), []string{"sh", "-c", o.NameModel}, runname.Prompt(string(spec)), dir, namingTimeout)
	h.naming = namingStep(o.NameModel, a, err) // recorded once the run exists
	if err != nil {
		h.env.Log.Warn("naming agent failed: the run is named after its spec", "err", err)
		return nil
	}
	run.Name, run.NameSource = a.Name, runname.SourceAgent
	return nil
}

// makeWorktree creates the run's worktree when the run asks for one.
func (h *holder) makeWorktree(o *PhaseOptions, set map[string]string, name string) error {
	if set["worktree"] == "" {
		return nil
	}
	top := store.GitTop(set["dir"])
	if top == "" {
		return cli.Usagef("--worktree needs a git repository (%s is not in one)", set["dir"])
	}
	c, err := worktree.Create(worktree.Spec{Top: top, Base: o.BaseBranch, Prefix: o.RunBranchPrefix,
		Slug: worktree.Slug(name), Template: o.WorktreeTemplate})
	if err != nil {
		return cli.WithCode(3, err)
	}
	set["dir"], set["run_branch"], set["base_branch"] = c.Path, c.Branch, c.Base
	return nil
}

// queueSlot waits for the run's turn and a slot; the run shows as queued
// meanwhile.
func (h *holder) queueSlot(o *PhaseOptions, max int, id string) error {
	run, err := h.st.ReadRun(id)
	if err != nil {
		return cli.Failf("%w", err)
	}
	dir := slots.Dir()
	if err := slots.Prepare(dir, max); err != nil {
		return cli.Failf("concurrency slots: %w", err)
	}
	// a driver gone while this one waits: stop waiting
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for ctx.Err() == nil && os.Getppid() == h.parent {
			time.Sleep(time.Second)
		}
		cancel()
	}()
	queued := false
	held, err := queue.Acquire(ctx, queue.Config{
		Dir: dir, MaxConcurrency: max, MaxPerWorkspace: o.MaxPerWorkspace,
		Workspace: run.WorkspaceRoot, Policy: o.QueuePolicy, RunID: id, Enqueued: run.CreatedAt,
		Waiting: func(runs []string, why string) {
			// marked before it says so: whoever reads the message and then
			// the run's status sees it queued
			if !queued {
				queued = true
				if _, err := h.rec.SetStatus(id, record.RunQueued, "waiting for "+strings.Join(runs, ", ")); err != nil {
					h.env.Log.Warn("run not marked queued", "err", err)
				}
			}
			h.env.Log.Info(fmt.Sprintf("waiting for a free slot: run %s holds it; %s", strings.Join(runs, ", "), why))
		},
	})
	switch {
	case errors.Is(err, context.Canceled):
		return cli.Failf("the driver is gone")
	case err != nil:
		return cli.Usagef("%v", err)
	}
	h.held = held
	if queued {
		h.env.Log.Info("got a slot") // started marks the run running again
	}
	return nil
}
