package loopstep

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	"github.com/loopkit/loopkit/internal/agent"
	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/gitrun"
	"github.com/loopkit/loopkit/internal/gitstore"
	"github.com/loopkit/loopkit/internal/plan"
	"github.com/loopkit/loopkit/internal/proc"
	"github.com/loopkit/loopkit/internal/procid"
	"github.com/loopkit/loopkit/internal/procrec"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/userdir"
)

// stepRun is one loop-step invocation: where its files go and what it ran.
type stepRun struct {
	env     *cli.Env
	opts    *Options
	st      *store.Store
	readRun func() (*record.Run, error) // the --run's record, read once
	dir     string
	command string
	prompt  string
	// reviewed is the step under review (--review), nil for other steps.
	reviewed *record.Step
	argv     []string
	stdin    bool
	// spool is the spool entry's base path ("" with --no-store).
	spool                  string
	stdoutPath, stderrPath string
	promptPath, tempPrompt string
	gitBase, gitObjects    *string
	// staged is closed when the base snapshot started by prepare has read
	// the work tree (the agent may start), based when it is done.
	staged, based chan struct{}
	// prices is --prices' table, nil without it.
	prices agent.Prices
	// planPath is --plan made absolute; tasksBefore its boxes before the step.
	planPath    string
	tasksBefore plan.Tasks
	tasksKnown  bool // tasksBefore was counted: the plan was readable
	// stepID is the step's id in the run's events, "" without a run.
	stepID string
	// transcriptsFlag: --transcripts was given on the command line.
	transcriptsFlag bool
}

// outcome is what the attempts did, together.
type outcome struct {
	last     *proc.Result
	first    time.Time
	attempts int
	parsed   *agent.Result
	usage    agent.Usage
	// interrupted: loop-step was signalled and stopped the agent, so the
	// agent's last words are not why it ended
	interrupted bool
}

// prepare spools the prompt and substitutes the argument placeholders.
func (s *stepRun) prepare(args []string) error {
	// Refuse a bad {prompt} before anything is spooled.
	if _, _, err := agentArgs(args, s.prompt, ""); err != nil {
		return err
	}
	usesFile := false
	for _, a := range args {
		usesFile = usesFile || a == argPromptFile
	}
	if !s.opts.NoStore {
		if err := s.st.Init(); err != nil {
			return cli.Failf("%w", err)
		}
		s.spool = s.st.NewSpool("step")
		s.stdoutPath, s.stderrPath = s.spool+".stdout", s.spool+".stderr"
		s.promptPath = s.spool + ".prompt"
		// The meta goes first, so a step killed at any point leaves no spool
		// file that a resuming driver cannot attribute to its run.
		meta := s.meta(args[0])
		if err := store.WriteSpoolMeta(s.spool, meta); err != nil {
			return cli.Failf("spool: %w", err)
		}
		// The base snapshot (git processes) is taken while the prompt is
		// written; the meta is there first, to own its objects. The prompt is
		// not fsynced here: loop-record fsyncs it where it keeps it, and a
		// step cut by a power loss is lost with its spool entry anyway.
		if s.opts.Review == "" { // a reviewer changes nothing: no base to diff against
			s.staged, s.based = make(chan struct{}), make(chan struct{})
			go func() { defer close(s.based); s.snapshotBase(func() { close(s.staged) }) }()
		}
		if err := store.ReplaceFile(s.promptPath, []byte(s.prompt), store.FileMode); err != nil {
			s.waitBase()
			return cli.Failf("spool prompt: %w", err)
		}
	} else if usesFile {
		// --no-store keeps nothing: the file {prompt_file} needs lives only
		// while the agent runs.
		f, err := userdir.CreateTemp("loop-step-prompt-*.txt")
		if err != nil {
			return cli.Failf("prompt file: %w", err)
		}
		_, err = f.WriteString(s.prompt)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		s.tempPrompt = f.Name()
		if err != nil {
			return cli.Failf("prompt file: %w", err)
		}
	}
	path := s.promptPath
	if path == "" {
		path = s.tempPrompt
	}
	var err error
	s.argv, s.stdin, err = agentArgs(args, s.prompt, path)
	return err
}

// waitStaged waits until the base snapshot prepare started has read the
// work tree, or takes the whole snapshot when prepare started none.
func (s *stepRun) waitStaged() {
	if s.staged == nil {
		s.snapshotBase(nil)
		return
	}
	<-s.staged
}

// waitBase waits for the base snapshot prepare started, if any.
func (s *stepRun) waitBase() {
	if s.based != nil {
		<-s.based
	}
}

// snapshotBase records the work tree before the step (git_base): HEAD when
// it is clean, else a commit whose objects go to the spool entry's own
// object database, never the user's repository. staged is Base's.
func (s *stepRun) snapshotBase(staged func()) {
	odb := ""
	if s.spool != "" {
		odb = s.spool + ".git"
	}
	runDir := ""
	if s.opts.Run != "" {
		runDir = s.st.RunDir(s.opts.Run)
		gitrun.TrustRun(runDir)
	}
	if b := s.opts.Base; b != "" {
		if repo, err := gitstore.Open(runDir); err == nil && repo.HasCommit(b) {
			s.gitBase = &b
			if staged != nil {
				staged()
			}
			return
		}
		s.env.Log.Warn("--base is not a commit of the run's git directory: the work tree is snapshotted", "base", b)
	}
	base, used, ok, err := gitstore.Base(s.dir, odb, runDir, staged)
	switch {
	case err != nil:
		s.env.Log.Warn("git base unknown: files_changed will be the dirty tree", "err", err)
	case ok:
		s.gitBase = &base
		if used {
			s.gitObjects = &odb
		}
	}
}

// meta is the spool entry's meta: who writes it (pid and start time) and
// what a resuming driver needs to parse the output of a step killed before
// it printed its record.
func (s *stepRun) meta(program string) store.SpoolMeta {
	m := store.SpoolMeta{PID: os.Getpid(), Command: s.command, RunID: s.opts.Run, StartedAt: time.Now().UnixMilli(),
		Phase: s.opts.Phase, Program: filepath.Base(program), Format: s.opts.Format, StepID: s.stepID}
	m.PIDStart, _ = procid.Start(m.PID)
	return m
}

// runDir is the directory of the step's run, "" without one.
func (s *stepRun) runDir() string {
	if s.opts.Run == "" {
		return ""
	}
	return s.st.RunDir(s.opts.Run)
}

func (s *stepRun) cleanup() {
	s.waitBase() // no git process outlives the step
	if s.tempPrompt != "" {
		os.Remove(s.tempPrompt)
	}
}

// attempts runs the agent, again after a non-zero exit that is not a
// timeout while retries last, with a doubling backoff. A signal to
// loop-step (forwarded to the agent) ends the retrying.
func (s *stepRun) attempts() (*outcome, error) {
	sigs := make(chan os.Signal, 1)
	proc.NotifyStop(sigs)
	defer signal.Stop(sigs)
	out := &outcome{}
	backoff := s.opts.RetryBackoff.D()
	deadline := s.deadline()
	for {
		res, parsed, err := s.once(s.attemptTimeout(deadline))
		if err != nil {
			return nil, err
		}
		if res.StartLimited() {
			// no record: a step marked not found would fail the run for good
			return nil, res.Err
		}
		out.attempts++
		if out.first.IsZero() {
			out.first = res.Started
		}
		out.last, out.parsed = res, parsed
		out.usage.Add(parsed.Usage)
		interrupted := false
		select {
		case <-sigs:
			interrupted = true
		default:
		}
		// Nothing changes for a command that could not start, a timeout
		// would only time out again, a signal means stop, and an agent
		// stopped for a refused key or a rate limit would meet it again.
		out.interrupted = interrupted
		if res.StatusCode == 0 || res.TimedOut || res.Stopped || res.PID == 0 || interrupted || out.attempts > s.opts.Retries {
			return out, nil
		}
		if !deadline.IsZero() && !time.Now().Add(backoff).Before(deadline) {
			// the retry would start past the run's --max-duration
			s.env.Log.Warn("agent failed, not retried: the run's --max-duration passes first", "attempt", out.attempts, "status", res.StatusCode)
			return out, nil
		}
		s.env.Log.Warn("agent failed, retrying", "attempt", out.attempts, "status", res.StatusCode, "backoff", backoff)
		select {
		case <-time.After(backoff):
		case <-sigs:
			return out, nil
		}
		backoff *= 2
	}
}

// once runs one attempt, stopped after timeout, and parses its stdout:
// from the spool file, or live through a pipe with --no-store.
func (s *stepRun) once(timeout time.Duration) (*proc.Result, *agent.Result, error) {
	spec := proc.Spec{
		Args: s.argv, Dir: s.dir, Timeout: timeout, Grace: s.opts.Grace.D(),
		StdoutPath: s.stdoutPath, StderrPath: s.stderrPath, ParentDeath: true,
		InlineCap:   stderrTailBytes,
		IdleTimeout: s.opts.IdleTimeout.D(), AfterResultGrace: s.opts.AfterResult.D(),
	}
	live := newLiveWatch(s.env, s.opts.RateLimitPolicy)
	spec.Activity, spec.Stop = live.activity, live.stop
	usagePath := s.usagePath()
	os.Remove(usagePath)
	spec.Env = append(proc.ChildEnv(), usageFileEnv+"="+usagePath)
	defer func() {
		if s.spool == "" {
			os.Remove(usagePath)
		}
	}()
	popts := agent.Options{Format: s.opts.Format, Binary: filepath.Base(s.argv[0]), Warn: agent.Warner(s.env.Log.Warn), MaxToolCalls: s.opts.MaxToolCalls}
	if s.stdin {
		in, done := promptInput(s.prompt)
		defer done()
		spec.Stdin = in
	}
	if s.opts.Tee {
		spec.Tee = s.env.Stderr
	}
	var group struct {
		pid   int
		start uint64
	}
	if s.spool != "" {
		spec.OnStart = func(pid int) {
			meta := s.meta(s.argv[0])
			meta.PGID = pid
			meta.PGIDStart, _ = procid.Start(pid)
			// recorded before the meta names it: a cancel signals a group
			// only when loopkit's own record has it
			group.pid, group.start = pid, meta.PGIDStart
			// a start time unknown: the child is gone already, nothing to stop
			if err := procrec.Add(pid, meta.PGIDStart, procrec.Group, s.runDir()); err != nil && meta.PGIDStart != 0 {
				s.env.Log.Warn("the agent's process group is not recorded: a cancel will not stop what it leaves", "err", err)
			}
			if err := store.UpdateSpoolMeta(s.spool, meta); err != nil {
				s.env.Log.Warn("spool meta not written", "err", err)
			}
		}
	}
	// The parser reads stdout as it is written, in one pass beside the
	// spooling: exactly the bytes the step counted, even if a stray writer
	// appends to the spool file later.
	pr, pw := io.Pipe()
	spec.StdoutTee = pw
	type parsed struct {
		res *agent.Result
		err error
	}
	done := make(chan parsed, 1)
	go func() {
		res, err := agent.ParseOptions(pr, popts)
		io.Copy(io.Discard, pr) // never block the agent on a parser that stopped
		done <- parsed{res, err}
	}()
	proc.AdoptLeftovers()
	res, err := proc.Run(spec)
	if group.pid != 0 {
		procrec.Remove(group.pid, group.start) // proc.Run killed what was left of it
	}
	// what left the group (setsid) dies too, once the base's git is done
	s.waitBase()
	if n := proc.KillLeftovers(spec.Grace, res.Group()); n > 0 {
		s.env.Log.Warn("the agent left processes running outside its group: killed", "count", n)
	}
	if err == nil && res.CutByFileSize() != "" {
		s.env.Log.Warn("the agent: " + res.CutByFileSize())
	}
	if err == nil && res.ForksRefused != "" {
		s.env.Log.Warn("the agent: " + res.ForksRefused)
	}
	pw.Close()
	p := <-done
	if err != nil {
		return nil, nil, err
	}
	if p.err == nil {
		if n := live.stopped(); n != nil && res.Stopped {
			p.res.Stopped(n)
		}
		p.res.ScanStderr(res.Stderr, time.Now())
		for _, n := range p.res.Notices {
			s.env.Log.Warn("agent notice (not an error): " + n)
		}
		s.applyUsageFile(usagePath, &p.res.Usage)
	}
	return res, p.res, p.err
}

// usagePath is where the agent may write its usage: beside the spool
// entry, or a temporary file with --no-store.
func (s *stepRun) usagePath() string {
	if s.spool != "" {
		return s.spool + ".usage.json"
	}
	dir, err := userdir.Temp() // absolute: the agent runs in another folder
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, fmt.Sprintf("loop-step-usage-%d.json", os.Getpid()))
}

// stderrTailBytes is how much of the agent's stderr is searched for a
// usage-limit notice.
const stderrTailBytes = 16 << 10
