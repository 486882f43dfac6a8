package store

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runconfig"
)

// NewRunID returns a fresh run id that sorts by creation time:
// 20261123-140502-123-<name>-<4 hex>, the name part omitted when empty.
func NewRunID(name string, now time.Time) string {
	var rnd [2]byte
	rand.Read(rnd[:])
	ts := now.UTC().Format("20060102-150405.000")
	ts = strings.Replace(ts, ".", "-", 1)
	slug := Slug(name)
	if slug != "" {
		if len(slug) > 64 {
			slug = slug[:64]
		}
		return ts + "-" + slug + "-" + hex.EncodeToString(rnd[:])
	}
	return ts + "-" + hex.EncodeToString(rnd[:])
}

// maxClockBack is how far behind the newest run id the clock may have gone
// and a new run still sort after it: a clock hours off (a dual-boot RTC
// kept in local time, a VM before NTP) set right. An id further ahead is
// a bad clock's or a planted one, and is not followed.
const maxClockBack = 24 * time.Hour

// clockUnsetMs is 2026-11-01 UTC, before loopkit was written: a clock
// before it was never set (a board with no real-time clock boots in 1970,
// or at its firmware's date, until NTP is reached), so the newest id is
// followed however far ahead it is.
const clockUnsetMs = 1793491200000

// CreationTime is when a run created now is said to be created: now, or
// just after the newest run's id time or created_at (an older loopkit set
// it after naming the run) when the clock has gone back behind it (by less
// than a day, or by any time when the clock was never set), so that the new run's id and created_at still sort after
// every run made before it, and "the newest run" is this one.
func (s *Store) CreationTime(now time.Time) time.Time {
	ids, err := s.RunIDs()
	if err != nil {
		return now
	}
	for i := len(ids) - 1; i >= 0; i-- {
		at, ok := idTime(ids[i])
		if !ok {
			continue
		}
		if h, err := s.ReadRunHead(ids[i]); err == nil && h.CreatedAt > at.UnixMilli() {
			at = time.UnixMilli(h.CreatedAt)
		}
		if at.Before(now) || at.Sub(now) >= maxClockBack && now.UnixMilli() >= clockUnsetMs {
			return now
		}
		return at.Add(time.Millisecond)
	}
	return now
}

// idTime is the creation time a NewRunID id starts with.
func idTime(id string) (time.Time, bool) {
	if len(id) < 19 || id[15] != '-' {
		return time.Time{}, false
	}
	t, err := time.Parse("20060102-150405.000", id[:15]+"."+id[16:19])
	return t, err == nil
}

// Slug lowercases s and keeps [a-z0-9], folding everything else into single
// dashes, so a name or file name can be part of a run id or branch name.
func Slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimRight(b.String(), "-")
}

// ErrRunMismatch is a run.json whose run_id is not its directory's name: a
// run directory renamed or copied by hand. The name is the run's identity,
// so such a run is refused until loop-record repair rewrites its run_id.
var ErrRunMismatch = errors.New("run.json names another run")

// ReadRun reads a run's run.json; ErrNoSuchRun when the run does not exist,
// ErrRunMismatch when its run_id is not the directory's name.
func (s *Store) ReadRun(id string) (*record.Run, error) {
	r, err := s.ReadRunAsIs(id)
	if err != nil {
		return nil, err
	}
	if err := CheckRunID(id, r.RunID); err != nil {
		if cerr := s.otherCase(id); cerr != nil {
			return nil, cerr
		}
		return nil, err
	}
	return r, nil
}

// CheckRunID is ErrRunMismatch, with the fix, when the run_id read from
// runs/id/run.json is not id.
func CheckRunID(id, runID string) error {
	if runID != id {
		return fmt.Errorf("%w: runs/%s/run.json says run_id %q (renamed or copied by hand?); fix it with loop-record repair --run %s", ErrRunMismatch, id, runID, id)
	}
	return nil
}

// ReadRunAsIs reads run.json without checking its run_id: for the repair
// that rewrites it, and for readers that show what is there.
func (s *Store) ReadRunAsIs(id string) (*record.Run, error) {
	r := &record.Run{}
	if err := s.readRunJSON(id, r); err != nil {
		return nil, err
	}
	// the settings fixed at start, whatever run.json says now, and the
	// totals as loopkit last wrote them
	t := r.Totals()
	runconfig.EnforceWithTotals(s.RunDir(id), &r.Settings, &t)
	r.SetTotals(t)
	return r, nil
}

// RunHead is the part of run.json that deciding about a run needs;
// decoding only these fields keeps deciding 10,000 runs well under a second.
type RunHead struct {
	RunID      string `json:"run_id"`
	Status     string `json:"status"`
	CreatedAt  int64  `json:"created_at"`
	UpdatedAt  int64  `json:"updated_at"`
	ResolvedAt *int64 `json:"resolved_at"`
}

// ReadRunHead reads the RunHead of a run's run.json.
func (s *Store) ReadRunHead(id string) (*RunHead, error) {
	h := &RunHead{}
	return h, s.readRunJSON(id, h)
}

// ReadRunRaw returns run.json's bytes as they are, for readers that print
// them; like every read of run.json it follows no symlink.
func (s *Store) ReadRunRaw(id string) ([]byte, error) {
	var raw json.RawMessage
	err := s.readRunJSON(id, &raw)
	return raw, err
}

// readRunJSON is the one reader of run.json: never through a symlink, never
// more than maxRunJSON bytes; ErrNoSuchRun when it does not exist.
func (s *Store) readRunJSON(id string, v any) error {
	if err := ValidRunID(id); err != nil {
		return err
	}
	if err := s.checkRunDir(id); err != nil {
		return err
	}
	path := s.RunPath(id, RunFile)
	f, err := openNoFollow(path, os.O_RDONLY)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%w: %s", ErrNoSuchRun, id)
	}
	if errors.Is(err, os.ErrPermission) {
		return s.closedRun(id, fmt.Errorf("read %s: %w", path, err))
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxRunJSON))
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		// loopkit replaces run.json whole: something else changed it
		return fmt.Errorf("%s is damaged (%w): run %s cannot be used; its iterations stay readable (loop-view logs %s)", path, err, id, id)
	}
	return nil
}

// maxRunJSON bounds what is read of a run.json (a real one is a few KiB).
const maxRunJSON = 16 << 20

// ErrNewerRun is a run.json of a schema_version above record.RunSchema: a
// newer loopkit's, which this one reads but never rewrites.
var ErrNewerRun = errors.New("a newer loopkit's")

// NewerRun is ErrNewerRun, naming the fix, when r is a newer loopkit's
// run.json: one this version must not rewrite.
func NewerRun(r *record.Run) error {
	if r.SchemaVersion > record.RunSchema {
		return fmt.Errorf("run %s: run.json is schema_version %d, %w: this one writes %d and does not rewrite it "+
			"(it would drop what it does not know); use that loopkit on this run",
			r.RunID, r.SchemaVersion, ErrNewerRun, record.RunSchema)
	}
	return nil
}

// WriteRun rewrites run.json atomically, in the run's existing directory
// (never creating one).
func (s *Store) WriteRun(r *record.Run) error {
	if err := ValidRunID(r.RunID); err != nil {
		return err
	}
	if err := NewerRun(r); err != nil {
		return err
	}
	if err := s.checkRunDir(r.RunID); err != nil {
		return err
	}
	data, err := record.MarshalIndent(r)
	if err != nil {
		return err
	}
	// the driver's running state and the totals, where the agent cannot
	// write them (first: a write cut between the two leaves the newer kept)
	kept, err := json.Marshal(r.Totals())
	if err != nil {
		return err
	}
	if err := runconfig.KeepTotals(s.RunDir(r.RunID), &r.Settings, kept); err != nil {
		return err
	}
	return WriteFileAtomic(s.RunPath(r.RunID, RunFile), data, FileMode)
}

// RunIDs lists the ids of the run directories (tombstones and stray names
// excluded), sorted ascending; new ids sort by creation time.
func (s *Store) RunIDs() ([]string, error) {
	entries, err := os.ReadDir(s.RunsDir())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(entries))
	for _, e := range entries {
		if ValidRunID(e.Name()) == nil && !strings.HasPrefix(e.Name(), ".") {
			ids = append(ids, e.Name())
		}
	}
	sort.Strings(ids)
	return ids, nil
}

// NewRun returns the run.json of a new run.
func NewRun(id, name string, now int64) *record.Run {
	return &record.Run{
		SchemaVersion:  record.RunSchema,
		RunID:          id,
		Name:           name,
		Status:         record.RunRunning,
		ArtifactStatus: "draft",
		CreatedAt:      now,
		UpdatedAt:      now,
	}
}

// NewRunPrefix names a run directory being built by CreateRun; one rename
// makes it the run, so a creator killed at any moment leaves either no run
// or a whole one (and a ".new-<id>-<pid>-<hex>" directory loop-clean removes).
const NewRunPrefix = ".new-"

// CreateRun makes the run's directory with run.json and its RUN_CREATED
// event, atomically: everything is written in a directory of its own and
// renamed into place. It returns os.ErrExist when the run already exists.
func (s *Store) CreateRun(r *record.Run) error {
	return s.CreateRunWith(r, nil)
}

// CreateRunWith is CreateRun calling prepare on the half-built directory
// before the rename, so a creator can take a lock in the run before any
// other process can see it.
func (s *Store) CreateRunWith(r *record.Run, prepare func(dir string) error) error {
	if err := s.Init(); err != nil {
		return err
	}
	if s.RunExists(r.RunID) {
		return os.ErrExist
	}
	var rnd [4]byte
	rand.Read(rnd[:])
	tmp := filepath.Join(s.RunsDir(), fmt.Sprintf("%s%s-%d-%s", NewRunPrefix, r.RunID, os.Getpid(), hex.EncodeToString(rnd[:])))
	if err := os.Mkdir(tmp, DirMode); err != nil {
		return fmt.Errorf("create run: %w", err)
	}
	defer os.RemoveAll(tmp) // gone after the rename; removes a loser's copy
	data, err := record.MarshalIndent(r)
	if err != nil {
		return err
	}
	if err := WriteFileAtomic(filepath.Join(tmp, RunFile), data, FileMode); err != nil {
		return err
	}
	ev := record.Event{TS: r.CreatedAt, RunID: r.RunID, Type: record.EventRunCreated, Name: r.Name, SpecPath: r.SpecPath, PlanPath: r.PlanPath}
	if r.NameSource != "" {
		ev.NameSource = &r.NameSource
	}
	line, err := record.Marshal(ev)
	if err != nil {
		return err
	}
	if err := AppendLine(filepath.Join(tmp, EventsFile), line); err != nil {
		return err
	}
	if err := AppendReport(filepath.Join(tmp, ReportFile), EventRow(ev)); err != nil {
		return err
	}
	// The lock files are born with the run, so a writer and a deleter can
	// never create two different ones at the same path.
	for _, name := range []string{AppendLock, LiveLock} {
		if err := WriteFileAtomic(filepath.Join(tmp, name), nil, FileMode); err != nil {
			return err
		}
	}
	if prepare != nil {
		if err := prepare(tmp); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, s.RunDir(r.RunID)); err != nil {
		if errors.Is(err, os.ErrExist) || errors.Is(err, syscall.ENOTEMPTY) {
			return os.ErrExist // another creator won the race
		}
		return fmt.Errorf("create run: %w", err)
	}
	return SyncDir(s.RunsDir())
}

// AppendEvent appends one event to the run's events.jsonl (append lock held).
func (s *Store) AppendEvent(e record.Event) error { return s.AppendEvents(e) }

// AppendEvents appends events of one run to its events.jsonl in one write
// and one fsync (AppendLines).
func (s *Store) AppendEvents(es ...record.Event) error {
	lines := make([][]byte, len(es))
	for i, e := range es {
		line, err := record.Marshal(e)
		if err != nil {
			return err
		}
		lines[i] = line
	}
	if len(es) == 0 {
		return nil
	}
	return AppendLines(s.RunPath(es[0].RunID, EventsFile), lines...)
}

// LastIteration returns the last committed IterationLog of a run, or nil,
// after setting aside a final line that is no commit (see LastCommit); aside
// counts such lines. The caller holds the append lock.
func (s *Store) LastIteration(id string) (it *record.IterationLog, aside int, err error) {
	line, _, aside, err := LastCommit(s.RunPath(id, IterationsFile), "iteration")
	if err != nil {
		return nil, aside, err
	}
	it, err = s.lastOf(id, line)
	return it, aside, err
}

// PeekLastIteration is LastIteration for a reader: it holds no lock and
// writes nothing (see PeekCommit); nil when no line is committed.
func (s *Store) PeekLastIteration(id string) (*record.IterationLog, error) {
	line, _, err := PeekCommit(s.RunPath(id, IterationsFile), "iteration")
	if err != nil {
		return nil, err
	}
	return s.lastOf(id, line)
}

// lastOf decodes the run's last committed line (nil: none).
func (s *Store) lastOf(id string, line []byte) (*record.IterationLog, error) {
	if line == nil {
		return nil, nil
	}
	it := &record.IterationLog{}
	if err := json.Unmarshal(line, it); err != nil {
		return nil, fmt.Errorf("%s: last line: %w", s.RunPath(id, IterationsFile), err)
	}
	return it, nil
}

// LastAttempt returns the number of the run's last committed attempt (0:
// none), setting aside final lines that are no commit like LastIteration.
func (s *Store) LastAttempt(id string) (n, aside int, err error) {
	_, n, aside, err = LastCommit(s.RunPath(id, AttemptsFile), "attempt")
	return n, aside, err
}

// ReadAttempts returns the run's attempts in order (a torn last line, a
// write in progress, is not one yet).
func (s *Store) ReadAttempts(id string) ([]record.Attempt, error) {
	if err := s.checkRunDir(id); err != nil {
		return nil, err
	}
	var out []record.Attempt
	err := ScanFile(s.RunPath(id, AttemptsFile), func(lineNo int, line []byte) error {
		var a record.Attempt
		if err := json.Unmarshal(line, &a); err != nil {
			return fmt.Errorf("%s line %d: %w", AttemptsFile, lineNo, err)
		}
		out = append(out, a)
		return nil
	})
	return out, err
}
