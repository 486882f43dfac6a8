package runconfig

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"syscall"

	"github.com/loopkit/loopkit/internal/safefile"
	"github.com/loopkit/loopkit/internal/userdir"
	"github.com/loopkit/loopkit/internal/wfile"
)

// The agent can write run.json (the store is in its workspace): a setting
// it rewrote there between iterations must not be obeyed. So the settings
// fixed when the run started are also kept where the workspace cannot
// reach, $XDG_STATE_HOME/loopkit/settings/, named by the run directory's
// path; every reader of the run (store.ReadRun) takes them from there.
// Only the person changes them: `loop resume --max-iterations N` keeps the
// new ones.

func keptPath(runDir string) (string, error) { return keptIn(userdir.StateSub, runDir) }

// readPath is keptPath for a reader: it makes no directory (pkg/loopkit
// and loop-view promise to create nothing) and leaves their modes alone.
func readPath(runDir string) (string, error) { return keptIn(userdir.StateSubPath, runDir) }

func keptIn(stateSub func(string) (string, error), runDir string) (string, error) {
	dir, err := stateSub("settings")
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
	if old, err := safefile.ReadFile(path, 1<<20); err == nil {
		data = withPrev(data, old)
	}
	if err := replaceSynced(path, data); err != nil {
		return err
	}
	forgetDecoded()
	return KeepState(runDir, s)
}

// replaceSynced puts data in path's place, fsynced with its directory: a
// power cut soon after a run started otherwise lost the name, and the run
// was refused as planted (no settings kept) at every resume after the
// reboot, or left the file empty, and nothing of it was enforced.
func replaceSynced(path string, data []byte) error {
	tmp := path + ".tmp"
	os.Remove(tmp)
	if err := wfile.WriteSynced(tmp, data, 0o600); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return wfile.SyncDir(filepath.Dir(path))
}

// IsKept reports the run at runDir has settings kept (a driver made it).
func IsKept(runDir string) bool {
	path, err := readPath(runDir)
	if err != nil {
		return false
	}
	_, err = os.Lstat(path)
	return err == nil
}

// Planted reports a run at runDir that names an agent, as a driver's run
// does, with no settings kept, as a driver's run has: the agent wrote it
// into .loop/runs, and what its settings name (commands, folders outside
// the store) is the agent's, never to be run or written.
func Planted(runDir string, s *Settings) bool { return len(s.Agent) > 0 && !IsKept(runDir) }

// Forget drops the kept settings of a deleted run.
func Forget(runDir string) {
	if path, err := readPath(runDir); err == nil {
		os.Remove(path + ".tmp") // a holder killed inside Keep left it
		os.Remove(path)
	}
	if path, err := readStatePath(runDir); err == nil {
		os.Remove(path + ".tmp")
		os.Remove(path)
	}
}

// Enforce replaces s's settings, and its state (keepstate.go), with those
// kept for the run at runDir, and returns the keys run.json held other values for;
// nothing is changed for a run with none kept (made by loop-record, or
// before settings were kept).
func Enforce(runDir string, s *Settings) []string {
	d, ok := enforceFixed(runDir, s)
	if !ok {
		return nil
	}
	return s.enforceState(readState(runDir), d)
}

// enforceFixed replaces s's settings with those kept for the run at
// runDir, returning how they differed; ok is false for a run with none
// kept, whose settings and state are then run.json's.
func enforceFixed(runDir string, s *Settings) (d differences, ok bool) {
	path, err := readPath(runDir)
	if err != nil {
		return d, false
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return d, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return d, false
	}
	kept, prev, ok := decodeKept(f, path, fi)
	if !ok {
		return d, false
	}
	sv, kv := reflect.ValueOf(s).Elem(), reflect.ValueOf(kept).Elem()
	fields := Fields()
	for i := range fields {
		f := &fields[i]
		if f.State || f.Key == "" {
			continue
		}
		a, b := sv.Field(f.index), kv.Field(f.index)
		if reflect.DeepEqual(a.Interface(), b.Interface()) {
			continue
		}
		d.add(f.Key, wasReplaced(prev, f.Key, a))
		if b.Kind() == reflect.Slice && !b.IsNil() { // kept is shared: s gets its own
			c := reflect.MakeSlice(b.Type(), b.Len(), b.Len())
			reflect.Copy(c, b)
			b = c
		}
		a.Set(b)
	}
	return d, true
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

// decoded is the kept file last decoded by this process: the holder and
// loop-step read a run's settings several times, and the file changes only
// by Keep's rename, which gives it another inode.
var decoded struct {
	sync.Mutex
	path string
	v    safefile.Version
	s    *Settings
	prev map[string]json.RawMessage // the values s replaced (prev.go)
}

func forgetDecoded() {
	decoded.Lock()
	decoded.s = nil
	decoded.Unlock()
}

// decodeKept decodes the open kept file f, with the values it replaced,
// or returns the copies decoded from the same file before; they must not
// be changed.
func decodeKept(f *os.File, path string, fi os.FileInfo) (*Settings, map[string]json.RawMessage, bool) {
	v, known := safefile.VersionOf(fi)
	decoded.Lock()
	defer decoded.Unlock()
	if known && decoded.s != nil && decoded.path == path && decoded.v == v {
		return decoded.s, decoded.prev, true
	}
	data, err := io.ReadAll(io.LimitReader(f, 1<<20))
	if err != nil {
		return nil, nil, false
	}
	kept := &Settings{}
	if err := json.Unmarshal(data, kept); err != nil {
		return nil, nil, false
	}
	_, prev, _ := splitPrev(data)
	decoded.path, decoded.v, decoded.s, decoded.prev = path, v, kept, prev
	return kept, prev, true
}
