package recorder

import (
	"encoding/json"
	"os"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/loopkit/loopkit/internal/gitstate"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/safefile"
	"github.com/loopkit/loopkit/internal/store"
)

// manifest is the run manifest: the latest verification at the top (as
// the artifacts specification's manifest has it), and every verification
// of the run, oldest first, in verifications.
type manifest struct {
	RunID string `json:"run_id"`
	verification
	Platform      map[string]any `json:"platform"`
	Verifications []verification `json:"verifications"`
}

// verification is one entry of the manifest: an iteration's validation
// (and the final verification of that iteration, when one ran).
type verification struct {
	Iteration        int            `json:"iteration"`
	TimestampStart   string         `json:"timestamp_start"`
	TimestampEnd     string         `json:"timestamp_end"`
	CommitSHA        *string        `json:"commit_sha"`
	Status           string         `json:"status"`
	CommandsExecuted []manifestStep `json:"commands_executed"`
}

// readManifest reads the run's manifest.json; an unreadable one is empty.
// The manifest this process wrote last is not decoded again while the file
// is the one it wrote: it grows by an entry an iteration, and decoding it
// whole each time made every iteration of a long run slower than the last.
func (r *Recorder) readManifest(id string) manifest {
	path := r.St.RunPath(id, store.ManifestFile)
	if m, ok := written.get(path); ok {
		return m
	}
	var m manifest
	if data, err := safefile.ReadFile(path, safefile.DocMax); err == nil {
		if json.Unmarshal(data, &m) != nil {
			m = manifest{}
		}
	}
	return m
}

// saveManifest writes m as the run's manifest.json.
func (r *Recorder) saveManifest(id string, m manifest) error {
	prev, enc := written.encoded()
	data, enc, err := encodeManifest(m, prev, enc)
	if err != nil {
		return err
	}
	path := r.St.RunPath(id, store.ManifestFile)
	if err := store.WriteFileAtomic(path, data, store.FileMode); err != nil {
		return err
	}
	written.put(path, m, enc)
	return nil
}

// written is the manifest this process wrote last, with the identity of
// its file. A manifest written since by anyone else is a new file (an
// atomic write renames one in), or the same file changed in size or time.
// Taking ours for a file replaced in the instant after our rename is no
// loss: ours is what the records derive.
var written manifestMemo

type manifestMemo struct {
	sync.Mutex
	path string
	v    safefile.Version
	m    manifest
	// enc are m's verifications as encoded, compared by value before use
	enc [][]byte
}

// encoded is the last manifest written's verifications and their encoding,
// whatever file it went to: an entry is reused only when equal.
func (w *manifestMemo) encoded() ([]verification, [][]byte) {
	w.Lock()
	defer w.Unlock()
	return w.m.Verifications, w.enc
}

func versionOf(path string) (safefile.Version, bool) {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return safefile.Version{}, false
	}
	return safefile.VersionOf(fi)
}

func (w *manifestMemo) get(path string) (manifest, bool) {
	w.Lock()
	defer w.Unlock()
	if w.path != path {
		return manifest{}, false
	}
	if v, ok := versionOf(path); !ok || v != w.v {
		return manifest{}, false
	}
	m := w.m // the list is copied: its callers append to it
	m.Verifications = slices.Clone(m.Verifications)
	return m, true
}

func (w *manifestMemo) put(path string, m manifest, enc [][]byte) {
	w.Lock()
	defer w.Unlock()
	w.path = ""
	m.Verifications = slices.Clone(m.Verifications)
	w.m, w.enc = m, enc
	if v, ok := versionOf(path); ok {
		w.path, w.v = path, v
	}
}

// setLatest makes the top of m the entry of its iteration in the list: the
// entries of earlier iterations are kept, a later or equal one replaced.
func (m *manifest) setLatest() {
	var keep []verification
	for _, v := range m.Verifications {
		if v.Iteration < m.Iteration {
			keep = append(keep, v)
		}
	}
	m.Verifications = append(keep, m.verification)
}

type manifestStep struct {
	Name       string `json:"name"`
	Command    string `json:"command"`
	ExitCode   *int   `json:"exit_code"`
	DurationMs int64  `json:"duration_ms"`
}

func (r *Recorder) writeManifest(run *record.Run, it *record.IterationLog) error {
	iso := func(ms int64) string { return time.UnixMilli(ms).UTC().Format(time.RFC3339) }
	total := it.DurationMs
	m := manifest{
		RunID:        run.RunID,
		verification: verification{Iteration: it.Iteration, Status: "FAIL"},
		Platform:     map[string]any{"os": runtime.GOOS, "arch": runtime.GOARCH, "container_image": nil},
	}
	if it.Status == record.StatusPass {
		m.Status = "PASS"
	}
	if a := it.Agent; a != nil {
		m.CommandsExecuted = append(m.CommandsExecuted, manifestStep{"agent", a.Command, a.ExitCode, a.DurationMs})
		total += a.DurationMs
	}
	if it.ValidationCommand != "" {
		code := it.ExitCode
		m.CommandsExecuted = append(m.CommandsExecuted, manifestStep{"validate", it.ValidationCommand, &code, it.DurationMs})
	}
	m.TimestampStart, m.TimestampEnd = iso(it.CreatedAt-total), iso(it.CreatedAt)
	m.Verifications = r.readManifest(run.RunID).Verifications
	// HEAD of the work tree the iteration ran in (its trees were taken
	// there), not of wherever the recording command was started
	if h := r.head; h != nil {
		if sha := h.get(); sha != "" {
			m.CommitSHA = &sha
		}
	} else if top := store.GitTop(r.Workspace); top != "" {
		if sha := gitstate.HeadCommit(top); sha != "" {
			m.CommitSHA = &sha
		}
	}
	m.setLatest()
	return r.saveManifest(run.RunID, m)
}
