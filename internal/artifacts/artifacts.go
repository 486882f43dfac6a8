package artifacts

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/loopkit/loopkit/internal/quote"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runconfig"
	"github.com/loopkit/loopkit/internal/safefile"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/userdir"
)

// The settings (run.json's settings) that say where a run's copies go.
const (
	KeyLogDir       = "log_dir"        // the bin/loop layout, <log_dir>/run-<id>/
	KeyArtifactMode = "artifact_mode"  // workspace (default) or mirror
	KeyGlobalLogDir = "global_log_dir" // the mirror's directory
	KeyArtifactDir  = "artifact_dir"   // <artifact_dir>/runs/<id>/
)

// Mirror is the artifact_mode that mirrors the run to global_log_dir.
const Mirror = "mirror"

// DefaultGlobalLogDir is $XDG_DATA_HOME/loopkit/runs, else
// ~/.local/share/loopkit/runs.
func DefaultGlobalLogDir() string {
	if d := os.Getenv("XDG_DATA_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "loopkit", "runs")
	}
	home, err := userdir.Home()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".local", "share", "loopkit", "runs")
}

// Resolve makes the copy settings of a new run absolute, once, so that
// every writer of the run copies to the same place: a relative log_dir or
// artifact_dir starts at the workspace root; with artifact_mode=mirror an
// empty global_log_dir is the default one.
func Resolve(set *runconfig.Settings, workspace string) {
	for _, p := range []*string{&set.LogDir, &set.ArtifactDir, &set.GlobalLogDir} {
		if *p != "" && !filepath.IsAbs(*p) {
			*p = filepath.Join(workspace, *p)
		}
	}
	if set.ArtifactMode == Mirror && set.GlobalLogDir == "" {
		set.GlobalLogDir = DefaultGlobalLogDir()
	}
}

// Wanted reports whether the run asks for any copy.
func Wanted(run *record.Run) bool {
	s := &run.Settings
	return s.LogDir != "" || s.ArtifactDir != "" || s.ArtifactMode == Mirror
}

// CopiesFile, in the run's directory, lists the directories the run's
// copies were written to (a JSON array), each added before its first
// write: retention removes them whatever settings or environment the
// cleaning command has (a pipeline's run took them from its recorder's).
const CopiesFile = "copies.json"

// maxCopiesFile caps what is read of CopiesFile: a few paths.
const maxCopiesFile = 64 << 10

// dirs are the directories run's settings send copies to.
func dirs(run *record.Run) []string {
	set := run.Settings
	var out []string
	if set.LogDir != "" {
		out = append(out, filepath.Join(set.LogDir, "run-"+run.RunID))
	}
	if set.ArtifactMode == Mirror {
		if g := cmp.Or(set.GlobalLogDir, DefaultGlobalLogDir()); g != "" {
			out = append(out, filepath.Join(g, "run-"+run.RunID))
		}
	}
	if set.ArtifactDir != "" {
		out = append(out, filepath.Join(set.ArtifactDir, "runs", run.RunID))
	}
	return out
}

// Locations are the directories holding copies of run: those its
// settings name and those CopiesFile recorded. Read before the store
// deletes the run.
func Locations(st *store.Store, run *record.Run) []string {
	out := dirs(run)
	for _, d := range recorded(st, run.RunID) {
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

func recorded(st *store.Store, id string) []string {
	var ds []string
	data, err := safefile.ReadFile(st.RunPath(id, CopiesFile), maxCopiesFile)
	if err != nil || json.Unmarshal(data, &ds) != nil {
		return nil
	}
	return ds
}

// remember adds ds to the run's CopiesFile, before they are written.
func remember(st *store.Store, id string, ds []string) error {
	have := recorded(st, id)
	all := slices.Clone(have)
	for _, d := range ds {
		if !slices.Contains(all, d) {
			all = append(all, d)
		}
	}
	if len(all) == len(have) {
		return nil
	}
	data, err := json.Marshal(all)
	if err != nil {
		return err
	}
	return store.WriteFileAtomic(st.RunPath(id, CopiesFile), data, store.FileMode)
}

// Remove deletes the copies of a run the store has deleted (retention):
// each of ds (see Locations) that is a copy of run id by its name
// (run-<id>, or runs/<id>), through an os.Root on the directory that
// holds it, so a link inside is removed as a link. The bin/loop layout,
// the mirror in global_log_dir and the verification artifacts alike.
func Remove(id string, ds []string) error {
	if store.ValidRunID(id) != nil {
		return nil
	}
	var errs []error
	for _, d := range ds {
		base, name := filepath.Dir(d), filepath.Base(d)
		if !filepath.IsAbs(d) || name != "run-"+id && (name != id || filepath.Base(base) != "runs") {
			continue // not a copy's name: never removed
		}
		root, err := os.OpenRoot(base)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if err := root.RemoveAll(name); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", d, err))
		}
		root.Close()
	}
	return quote.Errors(errs)
}

// Write brings every copy the run's settings ask for up to date with the
// store. The caller holds the run's append lock, so one writer at a time
// copies a run. Each copy is tried; the errors are joined. A copy goes on
// from where it says it got (its progress), so a recording costs what it
// adds to the run, not the run's length.
func Write(st *store.Store, run *record.Run) error { return write(st, run, false) }

// Rebuild is Write checking every file of the copies, whatever their
// progress says: a repair's, for a copy that lost files.
func Rebuild(st *store.Store, run *record.Run) error { return write(st, run, true) }

func write(st *store.Store, run *record.Run, full bool) error {
	if !Wanted(run) {
		return nil
	}
	if err := remember(st, run.RunID, dirs(run)); err != nil {
		return fmt.Errorf("record where the copies go: %w", err)
	}
	s := load(st, run, full)
	set := run.Settings
	var errs []error
	try := func(what, base string, write func(string, *source) error) {
		if base == "" {
			return
		}
		if err := write(base, s); err != nil {
			errs = append(errs, fmt.Errorf("%s %s: %w", what, base, err))
		}
	}
	try("log_dir", set.LogDir, writeLogDir)
	if set.ArtifactMode == Mirror {
		try("global_log_dir", cmp.Or(set.GlobalLogDir, DefaultGlobalLogDir()), writeLogDir)
	}
	try("artifact_dir", set.ArtifactDir, writeArtifactDir)
	return quote.Errors(errs)
}
