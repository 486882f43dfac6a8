package loopdrive

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/store"
)

// mirror copies a finished run's directory into the global store (a store
// like any other: loop-view --store DIR reads it), byte for byte. The copy
// is built beside its place and renamed into it, so a reader sees the old
// copy or the new one, never half of one.
func mirror(env *cli.Env, st *store.Store, id, global string) error {
	if global == "" {
		global = defaultGlobal()
	}
	if !st.RunExists(id) {
		return cli.Failf("no such run: %s", id)
	}
	runs := filepath.Join(global, "runs")
	if err := os.MkdirAll(runs, 0o700); err != nil {
		return cli.Failf("global store: %v", err)
	}
	tmp := filepath.Join(runs, fmt.Sprintf(".mirror-%s-%d", id, os.Getpid()))
	os.RemoveAll(tmp)
	if err := copyTree(st.RunDir(id), tmp); err != nil {
		os.RemoveAll(tmp)
		return cli.Failf("mirror run %s: %v", id, err)
	}
	dst := filepath.Join(runs, id)
	old := filepath.Join(runs, fmt.Sprintf(".old-%s-%d", id, time.Now().UnixNano()))
	if err := os.Rename(dst, old); err == nil {
		defer os.RemoveAll(old)
	}
	if err := os.Rename(tmp, dst); err != nil {
		os.RemoveAll(tmp)
		return cli.Failf("mirror run %s: %v", id, err)
	}
	if err := store.SyncDir(runs); err != nil {
		return cli.Failf("mirror run %s: %v", id, err)
	}
	_, err := fmt.Fprintln(env.Stdout, dst)
	return err
}

// defaultGlobal is $XDG_DATA_HOME/loopkit, else ~/.local/share/loopkit.
func defaultGlobal() string {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "loopkit")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".local", "share", "loopkit")
}

// copyTree copies regular files, directories and symlinks of src to dst
// (which must not exist), keeping modes; every file is synced.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		to := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.Mkdir(to, info.Mode().Perm())
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(link, to)
		case d.Type().IsRegular():
			return copyFile(path, to, info.Mode().Perm())
		}
		return nil // sockets, devices: nothing a run holds
	})
}

func copyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
