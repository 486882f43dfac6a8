package loopdrive

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	agentout "github.com/loopkit/loopkit/internal/agent"
	"github.com/loopkit/loopkit/internal/artifacts"
	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/driverargs"
	"github.com/loopkit/loopkit/internal/exitcode"
	"github.com/loopkit/loopkit/internal/gitrun"
	"github.com/loopkit/loopkit/internal/nextaction"
	"github.com/loopkit/loopkit/internal/procid"
	"github.com/loopkit/loopkit/internal/procrec"
	"github.com/loopkit/loopkit/internal/queue"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/recorder"
	"github.com/loopkit/loopkit/internal/report"
	"github.com/loopkit/loopkit/internal/runcheck"
	"github.com/loopkit/loopkit/internal/runconfig"
	"github.com/loopkit/loopkit/internal/runstate"
	"github.com/loopkit/loopkit/internal/safefile"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/userdir"
)

// holder is a driver's hold on a run: the driver lock, the shared live
// lock and a concurrency slot, all kept by this process so that the
// driver's children never inherit a lock descriptor.
type holder struct {
	env *cli.Env
	st  *store.Store
	// door changes the run's status (queued, running); rec is its writer,
	// for the rest
	door  *runstate.Door
	rec   *recorder.Recorder
	locks []*store.Lock
	// parent is the driver's pid, read when this process started
	parent int
	// held is the run's slot (machine and workspace), kept like the locks
	held *queue.Held
	// naming is the naming agent's call, kept as an attempt of the new run
	naming *record.Step
	// named: the driver is in loopkit's record of the run's drivers
	// (procrec), with its start time, as soon as it holds the driver lock
	named      bool
	namedStart uint64
}

// nameDriver records the driver (parent) as the run's, once, the moment it
// holds the run's driver lock: `loop cancel` signals only a driver that
// record names, so one that found the lock held and no driver recorded
// (a resume stopping what a crash left, taking the tree's lock, the
// run's slot) signalled nobody and gave up while the run went on.
func (h *holder) nameDriver(id string) {
	if h.named {
		return
	}
	h.named = true
	h.namedStart, _ = procid.Start(h.parent)
	if err := procrec.Add(h.parent, h.namedStart, procrec.Driver, h.st.RunDir(id)); err != nil {
		h.env.Log.Warn("the driver is not recorded: loop cancel cannot stop it", "err", err)
	}
}

func (h *holder) emit(k, v string) { emit(h.env, k, v) }

func (h *holder) fail(err error) error { return exitRecord(h.env, err) }

func hold(env *cli.Env, st *store.Store, opts *holdOptions) error {
	// The driver is the parent we start with: die with it from the start,
	// so a driver killed while this one waits for a slot leaves nothing.
	door := runstate.Plain(st, env.Log)
	h := &holder{env: env, st: st, door: door, rec: door.Rec, parent: os.Getppid()}
	dieWithParent()
	// Once its death kills this process, the parent must still be the
	// driver: the one that named itself (pid 1 when it is a container's
	// first process), else any but pid 1, an orphan's parent. An exit
	// record, or a driver still reading waits for ever.
	if p := os.Getppid(); p != h.parent || opts.Driver != 0 && p != opts.Driver || opts.Driver == 0 && p <= 1 {
		return exitRecord(env, cli.Failf("the driver that started this is gone"))
	}
	defer func() {
		for _, l := range h.locks {
			l.Unlock()
		}
	}()
	defer func() {
		if h.named { // before the locks go
			procrec.Remove(h.parent, h.namedStart)
		}
	}()
	var id string
	var err error
	if opts.New {
		id, err = h.create(opts)
	} else {
		id, err = h.resume(opts)
	}
	if err != nil || id == "" {
		if err != nil {
			return h.fail(err)
		}
		return nil
	}
	if sid, err := store.ID(st.Root); err == nil {
		h.emit("storeid", sid) // the driver's children refuse another folder there
	}
	h.emit("run", id)
	fail := func(err error) error { h.failRun(id, err); return h.fail(err) }
	// The driver is named before it may wait for a slot (a queued driver
	// must hear cancel too); cancel signals only the driver loopkit's own
	// record has, named since it took the driver lock
	h.nameDriver(id)
	start := h.namedStart
	if _, err := h.rec.Update(id, func(run *record.Run) error {
		pid := h.parent
		run.PID, run.PIDStart = &pid, nil
		if start != 0 {
			run.PIDStart = &start
		}
		if pgid, err := unix.Getpgid(pid); err == nil {
			run.PGID = &pgid
		}
		return nil
	}); err != nil {
		return fail(cli.Failf("%w", err))
	}
	if err := h.queueSlot(&opts.Settings, id); err != nil {
		return fail(err)
	}
	if err := h.started(id); err != nil {
		return fail(err)
	}
	run, err := h.startDriving(id)
	if err != nil {
		return fail(cli.Failf("%w", err))
	}
	h.emitSettings(run)
	if opts.New {
		h.startNotes(run)
	}
	var reqs chan request
	if opts.Serve {
		asChild(st.Root, h.parent)
		reqs = make(chan request)
		go readRequests(env.Stdin, reqs)
	}
	h.emit("ready", "1")
	h.wait(id, reqs)
	return nil
}

// failRun marks run id failed with err, which stops this driver once the
// run exists (a full or read-only disk, a runtime directory it cannot
// use): exit 70 never leaves the run running, shown interrupted. A driver
// that is gone (killed) leaves it so, for a resume.
func (h *holder) failRun(id string, err error) {
	if code := cli.Code(err); code != exitcode.Failure && code != exitcode.Internal || os.Getppid() != h.parent {
		return
	}
	if _, serr := h.door.SetStatus(id, record.RunFailed, err.Error()); serr != nil {
		h.env.Log.Warn(fmt.Sprintf("run %s not marked failed: it shows as interrupted", id), "err", serr)
	}
}

// create checks the settings and creates the run with its driver lock
// taken before the run directory appears.
func (h *holder) create(opts *holdOptions) (string, error) {
	set := &opts.Settings
	if err := runcheck.Check(set); err != nil {
		return "", cli.Usagef("%v", err)
	}
	if set.MergeTarget != "" && !set.Worktree { // only a run's own branch is merged
		set.Worktree = true
		h.emit("note", fmt.Sprintf("merge target %s: the run works in a worktree of its own, as --worktree", set.MergeTarget))
	}
	id := opts.Run
	if id == "" {
		label, src := set.Name, set.Prompt
		if opts.Spec != "" {
			src = opts.Spec
		}
		if label == "" { // the spec's file name, never a generated label
			label = strings.TrimSuffix(filepath.Base(src), filepath.Ext(src))
		}
		id = store.NewRunID(label, time.Now())
	}
	// A run in the workspace itself takes its tree before anything is
	// made or paid for (the naming agent); a worktree run, once made.
	if !set.Worktree {
		if err := h.lockTree(set.Dir, id); err != nil {
			return "", err
		}
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
	name := set.Name
	if name == "" {
		name = id
	}
	run := store.NewRun(id, name, time.Now().UnixMilli())
	run.WorkspaceRoot = set.Dir
	if top := store.GitTop(set.Dir); top != "" {
		run.WorkspaceRoot = top
	}
	artifacts.Resolve(set, run.WorkspaceRoot)
	if err := h.phases(&opts.PhaseOptions, set, run); err != nil {
		return "", err
	}
	if err := checkMerge(set); err != nil {
		return "", err
	}
	if err := h.makeWorktree(set, run.Name); err != nil {
		return "", err
	}
	if set.Worktree {
		if err := h.lockTree(set.Dir, id); err != nil {
			return "", err
		}
	}
	if store.GitTop(set.Dir) == "" {
		h.emit("note", notGit(set.Dir))
	}
	run.Settings = *set
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
	if errors.Is(err, os.ErrExist) {
		return "", cli.Failf("run %s already exists", id)
	}
	if err != nil {
		return "", cli.Failf("%w", err)
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

// resume takes an existing run's driver lock, or says who holds it. It
// returns "" when there is nothing to drive (the run is completed).
// workTreeThere refuses to resume a run whose work tree is gone (a
// worktree removed) or is now a link (the agent may have made it one):
// one line and exit 2 (a resume refused with a hint, as for any run the
// driver will not start), the run left as it was, never an internal error.
func workTreeThere(id string, set *runconfig.Settings) error {
	dir := set.Dir
	if dir == "" {
		return nil
	}
	fi, err := os.Lstat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		hint := "start a new run"
		if b := set.RunBranch; b != "" {
			hint = fmt.Sprintf("git worktree add %s %s, then resume; or start a new run", dir, b)
		}
		return &cli.ExitError{Code: exitcode.Usage, Err: fmt.Errorf("run %s works in %s, which is gone", id, dir), Hint: hint}
	case err != nil:
		return cli.Failf("run %s: %w", id, err)
	case fi.Mode()&os.ModeSymlink != 0:
		return &cli.ExitError{Code: exitcode.Usage, Err: fmt.Errorf("run %s works in %s, which is now a symlink: loopkit follows none there; move it away", id, dir)}
	case !fi.IsDir():
		return &cli.ExitError{Code: exitcode.Usage, Err: fmt.Errorf("run %s works in %s, which is not a directory now; move it away", id, dir)}
	}
	return nil
}

func (h *holder) resume(opts *holdOptions) (string, error) {
	id := opts.Run
	if err := findRun(h.st, id); err != nil {
		return "", err
	}
	if err := notPlanted(h.st, id); err != nil {
		return "", err
	}
	if err := h.lockDriver(id); err != nil {
		return "", err
	}
	// mend what a killed writer left, so the log's end is a commit
	if err := h.rec.Repair(id); err != nil {
		return "", cli.Failf("%w", err)
	}
	run, err := h.st.ReadRun(id)
	if err != nil {
		return "", cli.Failf("%w", err)
	}
	n := run.Iteration // after the repair above: the last committed one
	if run.Status == record.RunCompleted {
		h.emit("run", id) // first: the driver names the run in its message
		h.emit("status", record.RunCompleted)
		h.emit("exit", "0")
		return "", nil
	}
	switch {
	case opts.MaxIterations > 0 && opts.MaxIterations <= n:
		return "", cli.Usagef("run %s has run %s: --max-iterations must be more than that", id, nextaction.Count(n, "iteration"))
	case opts.MaxIterations == 0 && run.Status == record.RunStuck:
		return "", &cli.ExitError{Code: exitcode.Usage,
			Err:  fmt.Errorf("run %s is stuck after %s: resuming needs more", id, nextaction.Count(n, "iteration")),
			Hint: fmt.Sprintf("%s resume %s --max-iterations %d", driverargs.Prog(), id, n+nextaction.DefaultMaxIterations)}
	}
	if err := workTreeThere(id, &run.Settings); err != nil {
		return "", err
	}
	if err := h.lockTree(run.Settings.Dir, id); err != nil {
		return "", err
	}
	stopLeft(h.env, h.st, id)
	if err := h.lockLive(id); err != nil {
		return "", err
	}
	msg := fmt.Sprintf("resumed after iteration %d (was %s)", n, run.Status)
	resumed, err := h.door.Resume(id, func(run *record.Run) (string, error) {
		if opts.MaxIterations > 0 {
			run.Settings.MaxIterations = opts.MaxIterations
			msg += fmt.Sprintf(", max_iterations %d", opts.MaxIterations)
		}
		if opts.HasMaxDuration {
			run.Settings.MaxDuration = opts.MaxDuration
			msg += ", max_duration " + opts.MaxDuration.String()
		}
		run.Settings.ResumedAfter = n
		if run.Merge != nil && run.Merge.Status == record.MergeFailed { // its event stays
			run.Merge = nil
			msg += ", the merge to be tried again"
		}
		if p, err := h.promptWithHypotheses(run, n); err != nil {
			return "", err
		} else if p != "" {
			run.Settings.PromptCurrent = p
			msg += ", with the stuck report's hypotheses in the prompt"
		}
		return msg, nil
	})
	if err != nil {
		return "", cli.Failf("%w", err)
	}
	if opts.MaxIterations > 0 || opts.HasMaxDuration { // the person's new bounds
		if err := runconfig.Keep(h.st.RunDir(id), &resumed.Settings); err != nil {
			h.env.Log.Warn("the run's new bounds are not kept outside the workspace", "err", err)
		}
	}
	h.emit("note", fmt.Sprintf("resuming run %s after iteration %d", id, n)) // said by the driver, as its own lines
	return id, nil
}

// lockDriver takes the run's driver lock without waiting. A lock held by a
// driver that is already dead (its holder about to notice) is waited for
// briefly; a live driver makes the run busy.
func (h *holder) lockDriver(id string) error {
	path := h.st.RunPath(id, store.DriverLock)
	deadline := time.Now().Add(3 * time.Second)
	for {
		l, err := store.LockFile(path, true, false)
		if err != nil && !errors.Is(err, store.ErrLocked) {
			return cli.Failf("run %s: %w", id, err)
		}
		// the driver named is one loopkit recorded, not run.json's pid. One
		// alive drives the run even when its lock was granted here: the
		// agent can remove or replace the lock file the driver holds.
		for pid := range procrec.Drivers(h.st.RunDir(id)) {
			if l != nil {
				l.Unlock()
			}
			return &cli.ExitError{Code: exitcode.Busy,
				Err:  fmt.Errorf("run %s is busy: the driver with pid %d is driving it", id, pid),
				Hint: fmt.Sprintf("stop it first with '%[1]s cancel %[2]s' or '%[1]s pause %[2]s'", driverargs.Prog(), id)}
		}
		if err == nil {
			h.locks = append(h.locks, l)
			h.nameDriver(id)
			return nil
		}
		if time.Now().After(deadline) {
			return lockStranger(h.st, id)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func driverPID(st *store.Store, id string) int {
	run, err := st.ReadRun(id)
	if err != nil || run.PID == nil {
		return 0
	}
	return *run.PID
}

// emitSettings prints the run's settings as set.KEY=VALUE records and the
// agent's argv as one agent=ARG record per argument: values may hold any
// byte but NUL, so the driver needs neither eval nor base64.
func (h *holder) emitSettings(run *record.Run) {
	// every setting, resolved: the driver keeps no default of its own
	for _, f := range runconfig.Fields() {
		if f.Key != runconfig.AgentKey && f.Key != "trust_config" {
			h.emit("set."+f.Key, f.Text(&run.Settings))
		}
	}
	for _, a := range run.Settings.Agent {
		h.emit("agent", a)
	}
}

// stuckGit is how long a request the driver was signalled during may
// still run git: well under the 15 s `loop cancel` waits for the driver.
const stuckGit = 5 * time.Second

// wait keeps the locks until the driver exits or sends SIGUSR1. Signals a
// terminal sends to the whole foreground group are the driver's to handle:
// the lock must outlive the driver's own cleanup. Meanwhile it answers the
// driver's requests (reqs, nil when not asked; one at a time, so that a
// record and a checkpoint never overlap) and checkpoints the drivers'
// working time, for --max-duration.
func (h *holder) wait(id string, reqs chan request) {
	signal.Ignore(syscall.SIGINT, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGPIPE, syscall.SIGQUIT)
	release := make(chan os.Signal, 1)
	signal.Notify(release, syscall.SIGUSR1)
	// SIGUSR2: the driver was signalled while a request was answered. A
	// record finishes in time; one whose git is blocked for good (a FIFO
	// the agent put where git reads) is cut, and the driver ends the run.
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGUSR2)
	go func() {
		<-stop
		time.AfterFunc(stuckGit, gitrun.Abort)
	}()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	last := time.Now()
	for os.Getppid() == h.parent {
		select {
		case <-release:
			return
		case req, ok := <-reqs:
			if !ok {
				reqs = nil // the driver sends no more; its exit ends the wait
				continue
			}
			if err := answer(h.env, id, req); err != nil {
				h.env.Log.Warn("the driver's request was not answered", "err", err)
			}
		case now := <-tick.C:
			if now.Sub(last) < drivenCheckpoint {
				continue
			}
			last = now
			if _, err := h.rec.Update(id, func(run *record.Run) error {
				nextaction.FoldDriven(&run.Settings, time.Now())
				return nil
			}); err != nil {
				h.env.Log.Warn("working time not saved", "run", id, "err", err)
			}
		}
	}
}

// drivenCheckpoint is how often the working time is saved: a driver killed
// outright loses at most this much of its count.
const drivenCheckpoint = 10 * time.Second

// startDriving marks when this driver started working on the run: the
// count goes on from the last checkpoint (driven_ms), whatever a killed
// driver's driven_at says.
func (h *holder) startDriving(id string) (*record.Run, error) {
	return h.rec.Update(id, func(run *record.Run) error {
		run.Settings.DrivenAt = time.Now().UnixMilli()
		return nil
	})
}

// promptWithHypotheses writes prompt.resume.N.md, the task template
// followed by what was written in stuck.md's Hypotheses section, and
// returns its path; "" when nothing was written there.
func (h *holder) promptWithHypotheses(run *record.Run, n int) (string, error) {
	doc, err := safefile.ReadFile(h.st.RunPath(run.RunID, store.StuckFile), safefile.DocMax)
	if err != nil {
		return "", nil
	}
	written := report.WrittenHypotheses(string(doc))
	if written == "" {
		return "", nil
	}
	task, err := safefile.ReadFile(run.Settings.Prompt, safefile.DocMax)
	if err != nil {
		return "", fmt.Errorf("task prompt: %w", err)
	}
	text := strings.TrimRight(string(task), "\n") + "\n\n## Hypotheses from the stuck report\n\n" +
		"The loop was stuck before; this is what was concluded about why. Use it.\n\n" + written + "\n"
	path := h.st.RunPath(run.RunID, fmt.Sprintf("prompt.resume.%d.md", n))
	return path, store.WriteFileAtomic(path, []byte(text), store.FileMode)
}

// startNotes say where a new run works and what ends it, before its first
// step.
func (h *holder) startNotes(run *record.Run) {
	set := &run.Settings
	if set.Worktree {
		h.emit("note", fmt.Sprintf("working in worktree %s (branch %s)", set.Dir, set.RunBranch))
	}
	h.emit("note", fmt.Sprintf("run %s: %s at most, validating with: %s (store: %s)",
		run.RunID, nextaction.Count(set.MaxIterations, "iteration"), set.Validate, h.st.Root))
}
