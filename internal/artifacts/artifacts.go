package artifacts

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runconfig"
	"github.com/loopkit/loopkit/internal/store"
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
	home, err := os.UserHomeDir()
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

// Remove deletes the copies of a run the store has deleted (retention):
// its log_dir layout and its verification artifacts, each through an
// os.Root on the directory that holds it, so a link inside is removed as
// a link. The mirror stays: the global directory is the long-term record.
func Remove(run *record.Run) error {
	var errs []error
	rm := func(base string, name string) {
		if !filepath.IsAbs(base) || store.ValidRunID(run.RunID) != nil {
			return
		}
		root, err := os.OpenRoot(base)
		if errors.Is(err, os.ErrNotExist) {
			return
		}
		if err != nil {
			errs = append(errs, err)
			return
		}
		defer root.Close()
		if err := root.RemoveAll(name); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", filepath.Join(base, name), err))
		}
	}
	rm(run.Settings.LogDir, "run-"+run.RunID)
	if d := run.Settings.ArtifactDir; d != "" {
		rm(filepath.Join(d, "runs"), run.RunID)
	}
	return errors.Join(errs...)
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
		g := set.GlobalLogDir
		if g == "" {
			g = DefaultGlobalLogDir()
		}
		try("global_log_dir", g, writeLogDir)
	}
	try("artifact_dir", set.ArtifactDir, writeArtifactDir)
	return errors.Join(errs...)
}
