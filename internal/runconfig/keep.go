package runconfig

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"syscall"

	"github.com/loopkit/loopkit/internal/userdir"
)

// The agent can write run.json (the store is in its workspace): a setting
// it rewrote there between iterations must not be obeyed. So the settings
// fixed when the run started are also kept where the workspace cannot
// reach, $XDG_STATE_HOME/loopkit/settings/, named by the run directory's
// path; every reader of the run (store.ReadRun) takes them from there.
// Only the person changes them: `loop resume --max-iterations N` keeps the
// new ones.

func keptPath(runDir string) (string, error) {
	dir, err := userdir.StateSub("settings")
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(filepath.Clean(runDir)))
	return filepath.Join(dir, hex.EncodeToString(sum[:16])+".json"), nil
}

// Keep keeps s as the settings of the run at runDir (the state fields
// are not kept: they change as the run goes).
func Keep(runDir string, s *Settings) error {
	path, err := keptPath(runDir)
	if err != nil {
		return err
	}
	fixed := *s
	fixed.clearState()
	data, err := json.Marshal(fixed)
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	os.Remove(tmp)
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// IsKept reports the run at runDir has settings kept (a driver made it).
func IsKept(runDir string) bool {
	path, err := keptPath(runDir)
	if err != nil {
		return false
	}
	_, err = os.Lstat(path)
	return err == nil
}

// Forget drops the kept settings of a deleted run.
func Forget(runDir string) {
	if path, err := keptPath(runDir); err == nil {
		os.Remove(path)
	}
}

// Enforce replaces s's settings (not its state) with those kept for the
// run at runDir, and returns the keys run.json held other values for;
// nothing is changed for a run with none kept (made by loop-record, or
// before settings were kept).
func Enforce(runDir string, s *Settings) []string {
	path, err := keptPath(runDir)
	if err != nil {
		return nil
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(f, 1<<20))
	if err != nil {
		return nil
	}
	var kept Settings
	if err := json.Unmarshal(data, &kept); err != nil {
		return nil
	}
	changed := append([]string(nil), s.bad...) // unreadable: the default was taken
	sv, kv := reflect.ValueOf(s).Elem(), reflect.ValueOf(&kept).Elem()
	fields := Fields()
	for i := range fields {
		f := &fields[i]
		if f.State || f.Key == "" {
			continue
		}
		a, b := sv.Field(f.index), kv.Field(f.index)
		if !reflect.DeepEqual(a.Interface(), b.Interface()) && !contains(changed, f.Key) {
			changed = append(changed, f.Key)
		}
		if !reflect.DeepEqual(a.Interface(), b.Interface()) {
			a.Set(b)
		}
	}
	sort.Strings(changed)
	s.changed = changed
	return changed
}

// Changed are the settings run.json held other values for than those
// fixed at start (Enforce), which were used instead.
func (s *Settings) Changed() []string { return s.changed }

func (s *Settings) clearState() {
	v := reflect.ValueOf(s).Elem()
	fields := Fields()
	for i := range fields {
		if fields[i].State {
			v.Field(fields[i].index).SetZero()
		}
	}
}
