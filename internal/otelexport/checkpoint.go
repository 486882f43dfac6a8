package otelexport

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/loopkit/loopkit/internal/safefile"
	"github.com/loopkit/loopkit/internal/store"
)

// Checkpoint is what one destination has received of each run, kept in
// the store (outside run directories) so that a restarted --follow goes
// on where it stopped, without gaps or duplicates.
type Checkpoint struct {
	Destination string               `json:"destination"`
	Runs        map[string]*RunMarks `json:"runs"`
	path        string
}

// RunMarks are the last iteration and attempt sent of a run, and the
// status its root span was sent with ("" while it was not).
type RunMarks struct {
	CreatedAt int64  `json:"created_at"`
	Iteration int    `json:"iteration"`
	Attempt   int    `json:"attempt"`
	Root      string `json:"root,omitempty"`
}

// CheckpointDir is where the store keeps export checkpoints.
const CheckpointDir = "export"

// LoadCheckpoint reads the checkpoint of a destination (empty when new).
func LoadCheckpoint(root, destination string) (*Checkpoint, error) {
	sum := sha256.Sum256([]byte(destination))
	path := filepath.Join(root, CheckpointDir, hex.EncodeToString(sum[:8])+".json")
	cp := &Checkpoint{Destination: destination, Runs: map[string]*RunMarks{}, path: path}
	if err := checkpointDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	data, err := safefile.ReadFile(path, checkpointMax)
	if errors.Is(err, os.ErrNotExist) {
		return cp, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, cp); err != nil || cp.Destination != destination {
		return nil, errors.New("export checkpoint " + path + " is damaged: delete it to send everything again")
	}
	if cp.Runs == nil {
		cp.Runs = map[string]*RunMarks{}
	}
	return cp, nil
}

// Marks returns the marks of a run; a run recreated under the same id
// (another created_at) starts again from nothing.
func (c *Checkpoint) Marks(id string, createdAt int64) *RunMarks {
	m := c.Runs[id]
	if m == nil || m.CreatedAt != createdAt {
		m = &RunMarks{CreatedAt: createdAt}
		c.Runs[id] = m
	}
	return m
}

// checkpointMax caps a checkpoint read: a few dozen bytes a run.
const checkpointMax = 64 << 20

// checkpointDir refuses an export/ that is not a real directory: the store
// is in the agent's reach, and a link there would have checkpoints read
// from, and written to, anywhere.
func checkpointDir(dir string) error {
	fi, err := os.Lstat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err == nil && !fi.IsDir() {
		err = fmt.Errorf("%s is not a directory (a link?): move it away", dir)
	}
	return err
}

// MemoryCheckpoint is a checkpoint kept only while the process runs: a
// --follow to stdout sends each thing once, and a restart starts over.
func MemoryCheckpoint() *Checkpoint { return &Checkpoint{Runs: map[string]*RunMarks{}} }

// Save writes the checkpoint atomically, private to the user (a
// MemoryCheckpoint is not written).
func (c *Checkpoint) Save() error {
	if c.path == "" {
		return nil
	}
	dir := filepath.Dir(c.path)
	if err := checkpointDir(dir); err != nil {
		return err
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	if err := checkpointDir(dir); err != nil { // made a link meanwhile
		return err
	}
	c.forgetGone(filepath.Dir(dir))
	data, err := json.Marshal(c)
	if err != nil {
		return err
	}
	return store.WriteFileAtomic(c.path, data, 0o600)
}

// forgetGone drops the marks of runs the store at root no longer has: the
// checkpoint of a --follow on a long-lived runner kept one for every run
// it ever sent, long after loop-clean had removed them, and rewrote them
// all at each save. A run made again under its id starts over anyway.
func (c *Checkpoint) forgetGone(root string) {
	runs := (&store.Store{Root: root}).RunsDir()
	for id := range c.Runs {
		if store.ValidRunID(id) != nil {
			delete(c.Runs, id)
			continue
		}
		if _, err := os.Lstat(filepath.Join(runs, id)); errors.Is(err, os.ErrNotExist) {
			delete(c.Runs, id)
		}
	}
}
