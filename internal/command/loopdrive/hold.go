package loopdrive

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/exitcode"
	"github.com/loopkit/loopkit/internal/gitrun"
	"github.com/loopkit/loopkit/internal/nextaction"
	"github.com/loopkit/loopkit/internal/procid"
	"github.com/loopkit/loopkit/internal/procrec"
	"github.com/loopkit/loopkit/internal/queue"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/recorder"
	"github.com/loopkit/loopkit/internal/report"
	"github.com/loopkit/loopkit/internal/runconfig"
	"github.com/loopkit/loopkit/internal/runstate"
	"github.com/loopkit/loopkit/internal/safefile"
	"github.com/loopkit/loopkit/internal/store"
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
	// folded is when the working time was last saved, on the monotonic
	// clock: a checkpoint adds the time since, whatever the wall clock did
	folded time.Time
	// caught: the signals caught while the run is made or taken (announce.go)
	caught chan os.Signal
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
	// Ctrl-\ is the driver's, which passes SIGTERM on: caught and dropped,
	// it printed this process's stacks on the terminal (ignored, it stays so)
	if !signal.Ignored(syscall.SIGQUIT) {
		signal.Notify(make(chan os.Signal, 1), syscall.SIGQUIT)
	}
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
	if errors.Is(err, errSignalled) {
		return nil // the driver marks the run
	}
	if err != nil || id == "" {
		if err != nil {
			if id != "" { // announced: not left running
				h.failRun(id, err)
			}
			return h.fail(err)
		}
		return nil
	}
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
		return h.pausedOr(id, err, fail)
	}
	if err := h.started(id); err != nil {
		return h.pausedOr(id, err, fail)
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
	var srv *server
	if opts.Serve {
		asChild(st.Root, h.parent)
		srv = newServer()
		h.emit("key", srv.key)
		reqs = make(chan request)
		go readRequests(env.Stdin, reqs)
	}
	h.emit("ready", "1")
	h.wait(id, srv, reqs)
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
	if id, err := store.ID(run.Settings.Dir); err == nil {
		h.emit("dirid", id) // the driver's children refuse another folder there
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
func (h *holder) wait(id string, srv *server, reqs chan request) {
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
	tick := time.NewTicker(parentPoll)
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
			if err := srv.answer(h.env, id, req); err != nil {
				h.env.Log.Warn("the driver's request was not answered", "err", err)
			}
		case now := <-tick.C:
			// half a tick of slack: a tick delivered late must not put the
			// checkpoint off to the next one
			if now.Sub(last) < drivenCheckpoint-parentPoll/2 {
				continue
			}
			last = now
			at := time.Now()
			if _, err := h.rec.Update(id, func(run *record.Run) error {
				nextaction.FoldWorked(&run.Settings, at, at.Sub(h.folded))
				return nil
			}); err != nil {
				h.env.Log.Warn("working time not saved", "run", id, "err", err)
			} else {
				h.folded = at
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
	h.folded = time.Now()
	return h.rec.Update(id, func(run *record.Run) error {
		run.Settings.DrivenAt = h.folded.UnixMilli()
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
		base := set.BaseBranch
		if len(base) >= 40 && strings.Trim(base, "0123456789abcdef") == "" {
			base = base[:12] // a detached HEAD's commit
		}
		h.emit("note", fmt.Sprintf("working in worktree %s (branch %s, from %s)", set.Dir, set.RunBranch, base))
	}
	h.emit("note", fmt.Sprintf("run %s: %s at most, validating with: %s (store: %s)",
		run.RunID, nextaction.Count(set.MaxIterations, "iteration"), set.Validate, h.st.Root))
}
