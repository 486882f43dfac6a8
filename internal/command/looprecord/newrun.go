package looprecord

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/exitcode"
	"github.com/loopkit/loopkit/internal/procid"
	"github.com/loopkit/loopkit/internal/recorder"
	"github.com/loopkit/loopkit/internal/runconfig"
	"github.com/loopkit/loopkit/internal/store"
)

// A new run: its id, the settings given, the processes it belongs to.

func newRun(env *cli.Env, r *recorder.Recorder, opts *Options, settings [][2]string) error {
	id, created := opts.Run, r.St.CreationTime(time.Now())
	if id == "" {
		id = store.NewRunID(opts.Name, created)
	}
	name := opts.Name
	if name == "" {
		name = id
	}
	run := store.NewRun(id, name, created.UnixMilli())
	run.WorkspaceRoot = r.Workspace
	run.NameSource = opts.NameSource
	r.ApplyNewSettings(run) // --setting below wins
	for _, p := range []struct {
		dst  **string
		path string
	}{{&run.SpecPath, opts.Spec}, {&run.PlanPath, opts.Plan}} {
		if p.path != "" {
			abs, err := filepath.Abs(p.path)
			if err != nil {
				return cli.Failf("%w", err)
			}
			*p.dst = &abs
		}
	}
	for _, kv := range settings {
		if err := run.Settings.Set(kv[0], kv[1]); err != nil {
			return cli.WithCode(exitcode.Usage, fmt.Errorf("--setting %s: %w", kv[0], err))
		}
	}
	if err := r.St.CreateRun(run); err != nil {
		if errors.Is(err, os.ErrExist) {
			return cli.Failf("run %s already exists", id)
		}
		return cli.Failf("%w", err)
	}
	_, err := fmt.Fprintln(env.Stdout, id)
	return err
}

// checkPIDs refuses a --pid or --pgid that could make a later cancel
// signal every process of the user (-1), the caller's group (0) or init
// (1), and a --pid that names no process.
func checkPIDs(env *cli.Env, opts *Options, set func(string) bool) error {
	for _, f := range []struct {
		name string
		v    int
	}{{"pid", opts.PID}, {"pgid", opts.PGID}} {
		if f.v != 0 && f.v <= 1 || f.v == 0 && set(f.name) {
			return env.UsageError("--%s must be a process id above 1, got %d", f.name, f.v)
		}
	}
	if opts.PID > 1 {
		if _, err := procid.Start(opts.PID); errors.Is(err, procid.ErrNoProcess) {
			return env.UsageError("--pid %d: no such process", opts.PID)
		}
	}
	return nil
}

// startOf is the OS start time recorded beside a pid, so that nothing
// signals the pid once it names another process; nil when unknown (the
// group's leader gone, or a system without start times), which means the
// pid must never be signalled.
func startOf(env *cli.Env, pid int) *uint64 {
	st, err := procid.Start(pid)
	if err != nil {
		env.Log.Info("process start time unknown: nothing will signal it", "pid", pid, "err", err)
		return nil
	}
	return &st
}

// parseSettings reads --setting KEY=VALUE, in order; the values are
// checked as the driver's (runconfig) when they are set.
func parseSettings(kvs []string) ([][2]string, error) {
	var out [][2]string
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--setting %q: want KEY=VALUE", kv)
		}
		if runconfig.ByKey(k) == nil {
			return nil, fmt.Errorf("--setting %q: no such setting", kv)
		}
		out = append(out, [2]string{k, v})
	}
	return out, nil
}
