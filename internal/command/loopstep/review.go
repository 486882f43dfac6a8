package loopstep

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/gitrun"
	"github.com/loopkit/loopkit/internal/gitstore"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/review"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/userdir"
)

// reviewedStep reads the record of the step under review from file.
func reviewedStep(file string) (*record.Step, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, cli.Failf("--review: %w", pathError(err))
	}
	in, err := record.DecodeInput(data)
	if err != nil || in.Step == nil || in.Validation != nil {
		return nil, cli.BadInput(fmt.Errorf("--review %s: want the step record under review (%v)", file, err))
	}
	return in.Step, nil
}

// reviewDiff is the change step s (read from file) made: its work tree
// now against the tree before it (the step's git_base), snapshotted into
// the run's private git directory as loop-record will snapshot it (which
// then finds the files already hashed). n is the iteration the step will
// be, the run's next. A step outside git has an unknown change: "".
func reviewDiff(st *store.Store, run, file string, s *record.Step) (diff string, n int, err error) {
	last, err := st.PeekLastIteration(run)
	if err != nil {
		return "", 0, cli.Failf("run %s: %w", run, err)
	}
	if n = 1; last != nil {
		n = last.Iteration + 1
	}
	if s.GitBase == nil || s.Dir == "" {
		return "", n, nil
	}
	objects := ""
	if s.GitObjects != nil {
		// the step's own objects, in the spool: nothing else is imported
		if filepath.Dir(*s.GitObjects) != st.SpoolDir() {
			return "", 0, cli.BadInput(fmt.Errorf("--review %s: git_objects %s is not in the store's spool", file, *s.GitObjects))
		}
		objects = *s.GitObjects
	}
	gitrun.TrustRun(st.RunDir(run))
	where, err := gitstore.LocateAny(s.Dir)
	if err != nil {
		return "", n, nil // no longer in git: the change is unknown
	}
	repo, tree, err := gitstore.AfterStep(st.RunDir(run), where, objects, *s.GitBase)
	if err != nil {
		return "", 0, cli.Failf("snapshot the step's work tree: %w", err)
	}
	cs, err := repo.Changes(*s.GitBase, tree)
	if err != nil {
		return "", 0, cli.Failf("the step's change: %w", err)
	}
	if len(cs) == 0 {
		return "", n, nil
	}
	f, err := userdir.CreateTemp("loop-step-review-*.patch")
	if err != nil {
		return "", 0, cli.Failf("%w", err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	note := fmt.Sprintf("# The change is over %d bytes (or names a file too big to diff): only its\n"+
		"# summary is shown here. Read the files themselves in the work tree.\n", review.MaxDiffBytes)
	if _, err := repo.WritePatch(f, *s.GitBase, tree, cs, review.MaxDiffBytes, note); err != nil {
		return "", 0, cli.Failf("the step's diff: %w", err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", 0, cli.Failf("%w", err)
	}
	b, err := io.ReadAll(io.LimitReader(f, 2*review.MaxDiffBytes))
	if err != nil && !errors.Is(err, io.EOF) {
		return "", 0, cli.Failf("%w", err)
	}
	return string(b), n, nil
}
