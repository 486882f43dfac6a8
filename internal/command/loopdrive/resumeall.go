package loopdrive

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/exitcode"
	"github.com/loopkit/loopkit/internal/proc"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/userdir"
	"github.com/loopkit/loopkit/internal/view"
)

const resumeAllUsage = `Usage: loop resume --interrupted [--store DIR]... [--all-stores]
       loop resume --print-unit systemd|launchd

Examples:
  $ loop resume --interrupted
  $ loop resume --interrupted --all-stores

Resumes every interrupted run (running or queued, no driver alive) of the
stores given (default: the current one; --all-stores: every store a loop
was started in, remembered in $XDG_STATE_HOME/loopkit/stores), each in a
driver of its own, under the concurrency limits. Waits for every driver,
prints "RUN STATUS" as each ends, and exits 0 when every run completed,
else with the worst driver exit status.

--print-unit prints a systemd user unit or a launchd agent that runs
"loop resume --interrupted --all-stores" at login.
`

// resumeArgs are the arguments of `loop resume --interrupted`.
type resumeArgs struct {
	interrupted, all bool
	stores           []string
	unit, driver     string
}

func parseResumeAll(args []string) (*resumeArgs, error) {
	a := &resumeArgs{}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		val := func() (string, error) {
			if k, v, ok := strings.Cut(arg, "="); ok {
				arg = k
				return v, nil
			}
			if i+1 >= len(args) {
				return "", cli.Usagef("%s needs a value (see loop resume --help)", arg)
			}
			i++
			return args[i], nil
		}
		var err error
		switch name, _, _ := strings.Cut(arg, "="); name {
		case "--interrupted":
			a.interrupted = true
		case "--all-stores":
			a.all = true
		case "--store":
			var s string
			s, err = val()
			a.stores = append(a.stores, s)
		case "--print-unit":
			a.unit, err = val()
		case "--driver":
			a.driver, err = val()
		default:
			return nil, cli.Usagef("loop resume --interrupted: unknown argument %q (see loop resume --help)", arg)
		}
		if err != nil {
			return nil, err
		}
	}
	switch {
	case a.unit != "" && a.unit != "systemd" && a.unit != "launchd":
		return nil, cli.Usagef("--print-unit %q: give systemd or launchd", a.unit)
	case a.unit == "" && !a.interrupted:
		return nil, cli.Usagef("give --interrupted or --print-unit (see loop resume --help)")
	}
	return a, nil
}

// resumeAll is `loop resume --interrupted` and `--print-unit`: bash hands
// over its arguments and its own path (--driver), which each resumed run
// is driven by.
func resumeAll(env *cli.Env, args []string) error {
	for _, a := range args {
		if a == "-h" || a == "--help" {
			_, err := env.Stdout.WriteString(resumeAllUsage)
			return err
		}
	}
	a, err := parseResumeAll(args)
	if err != nil { // said as the driver says its own usage errors
		fmt.Fprintf(env.Stderr, "loop: %v\n", err)
		return cli.Silent(exitcode.Usage)
	}
	driver := a.driver
	if driver == "" {
		return cli.Usagef("--driver: the path of scripts/loop is needed")
	}
	if driver, err = filepath.Abs(driver); err != nil {
		return cli.Failf("driver path: %w", err)
	}
	if a.unit != "" {
		return printUnit(env, a.unit, driver)
	}
	for _, s := range a.stores {
		if _, err := os.Lstat(s); errors.Is(err, os.ErrNotExist) { // a mistyped path, not a store with nothing to resume
			return cli.Usagef("no store at %s (--store): check the path", s)
		}
	}
	roots, err := resumeStores(a)
	if err != nil {
		return err
	}
	var jobs []resumeJob
	var gone []string
	for _, root := range roots {
		js, err := interruptedRuns(root)
		if errors.Is(err, errStoreGone) {
			gone = append(gone, root)
			continue
		}
		if err != nil {
			env.Log.Warn(fmt.Sprintf("store %s skipped: %v", root, err))
			continue
		}
		jobs = append(jobs, js...)
	}
	if len(gone) > 0 {
		// a store moved away would have its runs left interrupted, unsaid
		env.Log.Warn(fmt.Sprintf("no store at %s (moved or deleted): skipped; move a moved one back to resume its runs",
			strings.Join(gone, ", ")))
	}
	return runResumes(env, driver, jobs)
}

// errStoreGone is a store folder that is not there any more.
var errStoreGone = errors.New("store gone")

// resumeStores are the stores --store, --all-stores or the current
// directory name, each once.
func resumeStores(a *resumeArgs) ([]string, error) {
	roots := a.stores
	if a.all {
		rs, err := userdir.Stores()
		if err != nil {
			return nil, cli.Failf("remembered stores: %w", err)
		}
		roots = append(roots, rs...)
	}
	if len(roots) == 0 {
		cwd, err := cli.Getwd()
		if err != nil {
			return nil, err
		}
		st, err := store.Resolve(os.Getenv("LOOP_STORE"), cwd)
		if err != nil {
			return nil, cli.Failf("%w", err)
		}
		roots = []string{st.Root}
	}
	seen := map[string]bool{}
	var out []string
	for _, r := range roots {
		if abs, err := filepath.Abs(r); err == nil && !seen[abs] {
			seen[abs] = true
			out = append(out, abs)
		}
	}
	return out, nil
}

type resumeJob struct{ root, run string }

// interruptedRuns are the store's runs the views call interrupted: running,
// driven by a driver, and no driver holding them now. A store that is gone
// is errStoreGone.
func interruptedRuns(root string) ([]resumeJob, error) {
	fi, err := os.Stat(filepath.Join(root, "runs"))
	switch {
	case errors.Is(err, os.ErrNotExist):
		if _, err := os.Lstat(root); errors.Is(err, os.ErrNotExist) {
			return nil, errStoreGone
		}
		return nil, nil // a store with no runs yet
	case err != nil:
		// not "no store here": one that cannot be reached may hold
		// interrupted runs; Open says what keeps it out
		if _, oerr := store.Open(root); oerr != nil {
			return nil, oerr
		}
		return nil, err
	case !fi.IsDir():
		return nil, fmt.Errorf("no store here")
	}
	st, err := store.Open(root)
	if err != nil {
		return nil, err
	}
	ids, err := st.RunIDs()
	if err != nil {
		return nil, err
	}
	var runs []*record.Run
	for _, id := range ids {
		// only a running or queued run can be interrupted: of the others
		// (nearly all, in a store of thousands) the head is enough
		if h, err := st.ReadRunHead(id); err != nil || !store.Unended(h.Status) {
			continue
		}
		if ri, err := view.LoadRun(st, id); err == nil && ri.Interrupted {
			runs = append(runs, ri.Run)
		}
	}
	slices.SortStableFunc(runs, func(a, b *record.Run) int { // oldest first: the longest waiting
		return cmp.Or(cmp.Compare(a.CreatedAt, b.CreatedAt), cmp.Compare(a.RunID, b.RunID))
	})
	out := make([]resumeJob, 0, len(runs))
	for _, r := range runs {
		out = append(out, resumeJob{st.Root, r.RunID})
	}
	return out, nil
}

// runResumes starts one driver per run, all at once (each waits for its
// concurrency slot itself), prints "RUN STATUS" as each ends and returns
// the worst exit status. A signal is passed on to every driver, which
// marks its run as it does for a Ctrl-C; this process waits for them.
func runResumes(env *cli.Env, driver string, jobs []resumeJob) error {
	sigs := make(chan os.Signal, 4)
	proc.NotifyStop(sigs)
	defer signal.Stop(sigs)
	var mu sync.Mutex
	var procs []*os.Process
	worst := 0
	var wg sync.WaitGroup
	for _, j := range jobs {
		cmd := exec.Command(driver, "resume", j.run)
		cmd.Dir = filepath.Dir(j.root)
		cmd.Env = append(os.Environ(), "LOOP_STORE="+j.root)
		if _, set := os.LookupEnv("LOOP_STORE"); !set {
			cmd.Env = append(cmd.Env, proc.UnsetEnv+"=LOOP_STORE") // loopkit's, not the person's
		}
		cmd.Stderr = env.Stderr
		if err := cmd.Start(); err != nil {
			return cli.Failf("start the driver of run %s: %w", j.run, err)
		}
		procs = append(procs, cmd.Process)
		wg.Add(1)
		go func() {
			defer wg.Done()
			code := 0
			if err := cmd.Wait(); err != nil {
				code = 1
				var ee *exec.ExitError
				if errors.As(err, &ee) {
					code = ee.ExitCode()
					if code < 0 {
						code = 128 + int(ee.Sys().(syscall.WaitStatus).Signal())
					}
				}
			}
			status := "unknown"
			if st, err := store.Open(j.root); err == nil {
				if r, err := st.ReadRun(j.run); err == nil {
					status = r.Status
					if st.Interrupted(r) { // its driver refused it or died: as the views say
						status = "interrupted"
					}
				}
			}
			if status != record.RunCompleted && code == 0 {
				code = 1 // a run that ended otherwise is no success
			}
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(env.Stdout, "%s %s\n", j.run, status)
			env.Stdout.Flush()
			worst = max(worst, code)
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for {
		select {
		case s := <-sigs:
			for _, p := range procs {
				p.Signal(s)
			}
		case <-done:
			if worst != 0 {
				return cli.Silent(worst)
			}
			return nil
		}
	}
}
