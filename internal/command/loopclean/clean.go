// Package clean is the loop-clean command: it enforces the retention policy
// on the store, and resolves stuck runs so that the policy applies to them.
package loopclean

import (
	"time"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/deadstep"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/retention"
	"github.com/loopkit/loopkit/internal/settings"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/trust"
)

const usage = `[OPTIONS]
loop-clean --resolve RUN

Examples:
  $ loop-clean --dry-run
  $ loop-clean --keep-last 50 --keep-days 30
  $ loop-clean --resolve RUN

Applies the retention policy: keeps at most --keep-last runs and none older
than --keep-days (by updated_at). Stuck runs not yet resolved, paused runs,
running live runs (their live.lock is held) and runs whose run.json cannot
be read are exempt and not counted; a live run that has ended counts but is
never deleted. Prints one decision per run (NDJSON: run_id, action
keep/delete/exempt, reason, age_days, bytes) and a summary on stderr.
Spool files older than a day whose writer is gone are removed too; a dead
agent step's output is first recorded as an interrupted attempt of its run.
--resolve RUN marks a stuck run resolved, prints its run.json and deletes
nothing; the next clean applies the policy to it.

Exit status: 0 done; 1 I/O failure, a failed deletion, or --resolve of a run
that does not exist; 2 usage.`

// Options are loop-clean's flags.
type Options struct {
	cli.Common
	KeepLast int    `long:"keep-last" value-name:"N" default:"20" range:"0,1000000" config:"keep_last" description:"keep at most the N newest runs (0: no limit)"`
	KeepDays int    `long:"keep-days" value-name:"N" default:"14" range:"0,36500" config:"keep_days" description:"delete runs not updated for more than N days (0: no limit)"`
	DryRun   bool   `long:"dry-run" short:"n" description:"print the decisions and delete nothing"`
	Bytes    bool   `long:"bytes" description:"report bytes for every run, not only deleted ones"`
	Resolve  string `long:"resolve" value-name:"RUN" description:"mark a stuck run resolved so the policy applies to it" unquote:"false"`
}

// Main is loop-clean.
func Main(env *cli.Env) error {
	return cli.Done(run(env))
}

func run(env *cli.Env) error {
	opts := &Options{}
	p := cli.NewParser(env, opts, usage)
	args, err := cli.Parse(env, p, &opts.Common, env.Args)
	if err != nil {
		return err
	}
	if len(args) > 0 {
		return env.UsageError("unexpected argument %q", args[0])
	}
	st, _, err := settings.OpenChecked(env, p, &opts.Common, opts, trust.Retention)
	if err != nil {
		return err
	}
	if err := settings.Named(&opts.Common, st); err != nil {
		return err
	}
	if opts.KeepLast < 0 || opts.KeepDays < 0 {
		return env.UsageError("--keep-last and --keep-days must be 0 or more")
	}
	if opts.Resolve != "" {
		if opts.DryRun {
			return env.UsageError("--resolve changes the run; it cannot be a --dry-run")
		}
		if err := store.ValidRunID(opts.Resolve); err != nil {
			return env.UsageError("%v", err)
		}
		return resolve(env, st, opts.Resolve)
	}
	o := retention.Options{
		Policy: retention.Policy{KeepLast: opts.KeepLast, KeepDays: opts.KeepDays},
		DryRun: opts.DryRun, Bytes: opts.Bytes, Wait: true, Now: time.Now(), Log: env.Log,
	}
	if !opts.DryRun {
		o.KeepStep = func(base string, m store.SpoolMeta) bool {
			if retention.StepRunGone(st, m) {
				return true
			}
			return deadstep.Keep(st, env.Log, m.RunID, base, m)
		}
	}
	rep, err := retention.Clean(st, o, func(d retention.Decision) error {
		line, err := record.Marshal(d)
		if err != nil {
			return err
		}
		_, err = env.Stdout.Write(append(line, '\n'))
		return err
	})
	if err != nil && !cli.IsBrokenPipe(err) {
		return cli.Failf("%w", err)
	}
	rep.LogSummary(env.Log, opts.DryRun)
	if err != nil {
		return err // stdout closed (| head): the clean still finished; exit quietly
	}
	if rep.Failed > 0 {
		return cli.Failf("%d run(s) could not be deleted", rep.Failed)
	}
	return nil
}
