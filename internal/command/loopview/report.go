package loopview

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/htmlreport"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/userdir"
	"github.com/loopkit/loopkit/internal/view"
)

const reportHelp = `[OPTIONS] [RUN]

Examples:
  $ loop-view report RUN > report.html
  $ loop-view report --all --dir reports

One HTML file to share, self-contained (it opens offline): the run's
summary, a timeline coloured by outcome, charts per iteration (validation
time, failing tests, tokens, cost and its running total), the watchdog's
signals, and per iteration the failing tests, the diff, the agent's
message, its tool calls and the validation output (long texts cut, with
where the whole text is). --all prints an index of the runs instead; with
--dir it writes index.html and one page per run into that directory.`

type reportCmd struct {
	runOpt
	All bool   `long:"all" description:"an index of every run instead of one run's page"`
	Dir string `long:"dir" value-name:"DIR" description:"with --all, write index.html and RUN.html for each run into DIR" unquote:"false"`
}

func (o *reportCmd) run(c *ctx, args []string) error {
	opts := htmlreport.Options{Now: time.Now()}
	if o.Dir != "" && !o.All {
		return c.env.UsageError("--dir needs --all")
	}
	if o.All {
		if len(args) > 0 {
			return c.env.UsageError("--all takes no RUN")
		}
		return o.all(c, opts)
	}
	runArg, _, err := c.positional(args, 1)
	if err != nil {
		return err
	}
	id, err := c.resolveRun(runArg, o.Run, false)
	if err != nil {
		return err
	}
	return failure(htmlreport.Write(c.env.Stdout, c.st, id, opts))
}

func (o *reportCmd) all(c *ctx, opts htmlreport.Options) error {
	runs, err := view.LoadRuns(c.st, func(id string, err error) {
		c.env.Log.Warn("run left out of the index", "run", id, "err", err)
	})
	if err != nil {
		return cli.Failf("%w", err)
	}
	if o.Dir == "" {
		return failure(htmlreport.WriteIndex(c.env.Stdout, runs, opts))
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return cli.Failf("--dir: %w", err)
	}
	// the pages show the runs' outputs: never into another user's folder
	// (made first at a name in /tmp), theirs to read
	if err := userdir.Yours(o.Dir); err != nil {
		return cli.Failf("--dir: %w: write into a folder of yours", err)
	}
	for _, r := range runs {
		id := r.Run.RunID
		err := writeFile(filepath.Join(o.Dir, htmlreport.FileName(id)), func(f *os.File) error {
			return htmlreport.Write(f, c.st, id, opts)
		})
		if errors.Is(err, store.ErrNoSuchRun) {
			continue // deleted meanwhile
		}
		if err != nil {
			return cli.Failf("report of run %s: %w", id, err)
		}
	}
	if err := writeFile(filepath.Join(o.Dir, "index.html"), func(f *os.File) error {
		return htmlreport.WriteIndex(f, runs, opts)
	}); err != nil {
		return cli.Failf("index: %w", err)
	}
	_, err = c.env.Stdout.WriteString(filepath.Join(o.Dir, "index.html") + "\n")
	return err
}

// writeFile writes a page through a temporary file, so a reader never sees
// half of one. Its mode is 0644 less the umask, as a shell's `>` makes it:
// a person with umask 077 keeps the outputs it shows to themselves; never
// wider than the page it replaces.
func writeFile(path string, fill func(*os.File) error) error {
	var tmp *os.File
	var err error
	for range 100 { // os.CreateTemp's retries, with the umask's mode
		var rnd [6]byte
		rand.Read(rnd[:])
		name := filepath.Join(filepath.Dir(path), ".report-"+hex.EncodeToString(rnd[:]))
		tmp, err = os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := fill(tmp); err != nil {
		tmp.Close()
		return err
	}
	// a page the person narrowed (chmod 600: it shows the agent's
	// output) stays so when written again, as a shell's `>` keeps it
	if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() {
		if mine, err := tmp.Stat(); err == nil && mine.Mode().Perm()&^fi.Mode().Perm() != 0 {
			if err := tmp.Chmod(mine.Mode().Perm() & fi.Mode().Perm()); err != nil {
				tmp.Close()
				return err
			}
		}
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
