package loopdrive

// Creating a new run: its settings checked, its directory made with the
// driver lock taken, and the live lock.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	agentout "github.com/loopkit/loopkit/internal/agent"
	"github.com/loopkit/loopkit/internal/artifacts"
	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/gitrun"
	"github.com/loopkit/loopkit/internal/nextaction"
	"github.com/loopkit/loopkit/internal/runcheck"
	"github.com/loopkit/loopkit/internal/runconfig"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/userdir"
)

// create checks the settings and creates the run with its driver lock
// taken before the run directory appears.
func (h *holder) create(opts *holdOptions) (string, error) {
	set := &opts.Settings
	if err := runcheck.Check(set); err != nil {
		if cli.DiskHint(err) != "" { // the machine's limit, not a bad setting
			return "", cli.Failf("%w", err)
		}
		return "", cli.Usagef("%v", err)
	}
	merged := set.MergeTarget != "" && !set.Worktree
	if merged { // only a run's own branch is merged
		set.Worktree = true
	}
	id, created := opts.Run, h.st.CreationTime(time.Now())
	if id == "" {
		label, src := set.Name, set.Prompt
		if opts.Spec != "" {
			src = opts.Spec
		}
		if label == "" { // the spec's file name, never a generated label
			label = strings.TrimSuffix(filepath.Base(src), filepath.Ext(src))
		}
		id = store.NewRunID(label, created)
	}
	// A run in the workspace itself takes its tree before anything is
	// made or paid for (the naming agent); a worktree run, once made.
	if !set.Worktree {
		if err := h.lockTree(set.Dir, id); err != nil {
			return "", err
		}
	}
	name := set.Name
	if name == "" {
		name = id
	}
	run := store.NewRun(id, name, created.UnixMilli())
	run.WorkspaceRoot = set.Dir
	if top := store.GitTop(set.Dir); top != "" {
		run.WorkspaceRoot = top
	}
	artifacts.Resolve(set, run.WorkspaceRoot)
	if err := h.inputs(&opts.PhaseOptions, set, run); err != nil {
		return "", err
	}
	if merged {
		h.emit("note", fmt.Sprintf("merge target %s: the run works in a worktree of its own, as --worktree", set.MergeTarget))
	}
	if w := nextaction.StartWarning(set); w != "" && !h.priced() {
		h.emit("warning", w) // the driver says it before the first step
		set.CostWarned = true
	}
	if w := agentout.BlindSpot(set.Agent); w != "" {
		h.emit("warning", w)
	}
	if n := nextaction.StartBounds(set); n != "" {
		h.emit("note", n)
	}
	if err := h.phases(set, run); err != nil {
		return "", err
	}
	if err := checkMerge(set); err != nil {
		return "", err
	}
	if err := h.makeWorktree(set, run.Name); err != nil {
		return "", err
	}
	h.planInWorktree(set, run)
	if set.Worktree {
		if err := h.lockTree(set.Dir, id); err != nil {
			return "", err
		}
	}
	if store.GitTop(set.Dir) == "" {
		h.emit("note", notGit(set.Dir))
	}
	run.Settings = *set
	h.catchSignals()
	err := h.st.CreateRunWith(run, func(dir string) error {
		l, err := store.LockFile(filepath.Join(dir, store.DriverLock), true, false)
		if err != nil {
			return err
		}
		h.locks = append(h.locks, l)
		h.nameDriver(id)
		// Fixed now, before the run appears: run.json's copy is the agent's
		// to write, this one is not, and a run without one is the agent's
		// (runconfig.Planted), so a driver killed once the run is there
		// must have kept them.
		if err := runconfig.Keep(h.st.RunDir(id), &run.Settings); err != nil {
			h.env.Log.Warn("the run's settings are not kept outside the workspace: an agent could change them in run.json, and no resume will take the run", "err", err)
		}
		return nil
	})
	if err != nil {
		h.endCatch()
		if errors.Is(err, os.ErrExist) {
			return "", cli.Failf("run %s already exists", id)
		}
		return "", cli.Failf("%w", err)
	}
	if err := h.announce(id); err != nil {
		return id, err
	}
	// for `loop resume --interrupted --all-stores` after a restart
	if err := userdir.RememberStore(h.st.Root); err != nil {
		h.emit("warning", fmt.Sprintf("store %s not remembered for loop resume --all-stores: %v", h.st.Root, err))
	}
	h.recordNaming(id)
	// the repository's config as the person left it: the run's git honours
	// the commands it names, and those of no later version
	if err := gitrun.Remember(h.st.RunDir(id), set.Dir); err != nil {
		h.env.Log.Warn("the repository's git config is not remembered: the run's git will run none of its commands", "err", err)
	}
	return id, h.lockLive(id)
}

// priced: a price table (config key prices, which loop-step reads) may
// estimate the cost of an agent that reports none.
func (h *holder) priced() bool {
	cfg, err := cli.LoadConfig(h.st.ConfigFile(), os.Getenv("LOOP_CONFIG"))
	_, ok := cfg["prices"]
	return err != nil || ok
}

func (h *holder) lockLive(id string) error {
	l, err := h.st.LockLive(id)
	if err != nil {
		return cli.Failf("run %s: %w", id, err)
	}
	h.locks = append(h.locks, l)
	return nil
}

// emitSettings prints the run's settings as set.KEY=VALUE records and the
