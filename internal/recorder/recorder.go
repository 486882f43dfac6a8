// Package recorder is the writer of runs, used through the one door
// (internal/runstate) by every command that writes: it turns step and
// validation records into a committed IterationLog, with the iteration
// folder, the derived files (events, report, manifest, run.json) and
// crash repair.
package recorder

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/loopkit/loopkit/internal/lazylog"
	"github.com/loopkit/loopkit/internal/progress"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runconfig"
	"github.com/loopkit/loopkit/internal/store"
)

// Recorder appends iterations to runs of one store.
type Recorder struct {
	St  *store.Store
	Log lazylog.Logger
	// Workspace is recorded as a new run's workspace_root.
	Workspace string
	// Trees keeps each iteration's work tree in the run's private git
	// directory and computes files_changed and changes.patch from the step's
	// git_base; off, the validation's dirty-tree list is kept.
	Trees bool
	// InlineCap is how many bytes of each stream's end the log line keeps
	// inline (0: DefaultInlineCap, negative: none); the whole streams are
	// in the folder.
	InlineCap int
	// MaxPatchBytes caps changes.patch (0: DefaultMaxPatchBytes).
	MaxPatchBytes int64
	// Progress renders run.json's progress block (nil: DefaultProgress);
	// the driver gives the limits its prompts use.
	Progress *progress.Limits
	now      func() time.Time
	// CopyDefaults are the copy settings (internal/artifacts) of a run
	// that has none of its own (no artifact_mode: not made by a driver).
	CopyDefaults map[string]string
	// NewSettings are set in a run this recorder creates (a pipeline's),
	// resolved as the commands that feed it resolve them (transcripts).
	NewSettings map[string]string
	// NoCreate is set for the driver's holder, whose run exists: it made
	// it. A run gone from the store (the agent moved the store away and
	// put a link to another folder in its place) is not made again there.
	NoCreate bool
	// head is HEAD of the work tree the last iteration's trees were taken
	// in, which manifest.json names.
	head *knownHead
}

// ErrConflict is an --iteration that is neither the next nor a repeat.
var ErrConflict = errors.New("iteration conflict")

// Result is what Record did.
type Result struct {
	Log  *record.IterationLog
	Line []byte // the stored line, byte for byte
	// Repeat is set when the iteration was already recorded from the same input.
	Repeat bool
	// Run is run.json as this commit wrote it; nil when it was not written
	// (a repeat, or a Warning).
	Run *record.Run
	// Warning is set when the record was committed but a derived file
	// (events, report, manifest, run.json) could not be written.
	Warning error
}

func (r *Recorder) nowMs() int64 {
	if r.now != nil {
		return r.now().UnixMilli()
	}
	return time.Now().UnixMilli()
}

// Digest identifies an input, for the idempotence of --iteration N.
func Digest(in *record.Input) string {
	h := sha256.New()
	for _, l := range in.Lines {
		h.Write(l)
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// EnsureRun creates the store and the run when they do not exist yet.
func (r *Recorder) EnsureRun(id, name string) error {
	if r.St.RunExists(id) {
		return nil
	}
	if name == "" {
		name = id
	}
	run := store.NewRun(id, name, r.nowMs())
	run.WorkspaceRoot = r.Workspace
	r.ApplyNewSettings(run)
	if err := r.St.CreateRun(run); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	return nil
}

// ApplyNewSettings sets NewSettings in a run about to be created.
func (r *Recorder) ApplyNewSettings(run *record.Run) {
	for k, v := range r.NewSettings {
		if err := run.Settings.Set(k, v); err != nil && r.Log != nil {
			r.Log.Warn(fmt.Sprintf("run %s: setting %s ignored: %v", run.RunID, k, err))
		}
	}
}

// lockCreating takes the run's append lock, creating the run first when it
// does not exist, and again when it is deleted before the lock is granted.
func (r *Recorder) lockCreating(id string) (*store.Lock, error) {
	// a driver's run (its settings kept) whose folder is gone was removed
	// during the run (git clean -x, rm -r runs/ID): made again, it would be
	// a run.json without its settings, read as one the agent changed
	if !r.St.RunExists(id) && runconfig.IsKept(r.St.RunDir(id)) {
		return nil, fmt.Errorf("run %s is gone from the store %s (removed during the run): a driver's run is not made again", id, r.St.Root)
	}
	for tries := 0; ; tries++ {
		if err := r.EnsureRun(id, ""); err != nil {
			return nil, err
		}
		lock, err := r.St.LockAppend(id)
		if errors.Is(err, store.ErrNoSuchRun) && tries < 100 {
			continue
		}
		return lock, err
	}
}

// lockRepaired takes the run's append lock (creating the run first when
// create is set) and repairs what a killed writer left: the prologue of
// every write. The caller unlocks.
func (r *Recorder) lockRepaired(id string, create bool) (*store.Lock, *repaired, error) {
	var lock *store.Lock
	var err error
	if create {
		lock, err = r.lockCreating(id)
	} else {
		lock, err = r.St.LockAppend(id)
	}
	if err != nil {
		return nil, nil, err
	}
	st, err := r.repair(id)
	if err == nil {
		err = r.settingsRestored(id, st.run)
	}
	if err != nil {
		lock.Unlock()
		return nil, nil, err
	}
	return lock, st, nil
}

// settingsRestored says once that run.json's settings were changed during
// the run: store.ReadRun took those fixed at start instead, and this
// writer writes them back now, not with a later write of its own (some
// writers never rewrite run.json), so the next one does not say it again.
func (r *Recorder) settingsRestored(id string, run *record.Run) error {
	if run == nil || len(run.Settings.Changed()) == 0 {
		return nil
	}
	msg := fmt.Sprintf("run.json's settings were changed during the run (%s): the settings fixed at start are used",
		strings.Join(run.Settings.Changed(), ", "))
	if r.Log != nil {
		r.Log.Warn(msg)
	}
	if err := r.St.WriteRun(run); err != nil {
		return err
	}
	return r.AppendEvent(record.Event{TS: r.nowMs(), RunID: id, Type: record.EventSettingsRestored, Message: msg})
}

// Record commits one iteration of run id built from in. want is the
// iteration number asked for (0: the next one).
func (r *Recorder) Record(id string, in *record.Input, want int) (*Result, error) {
	if err := r.CheckInput(in); err != nil {
		return nil, err
	}
	lock, st, err := r.lockRepaired(id, !r.NoCreate)
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	last := st.last
	digest := Digest(in)
	next := 1
	if last != nil {
		next = last.Iteration + 1
	}
	if want != 0 && want != next {
		if want < next {
			res, err := r.repeat(id, want, digest)
			if errors.Is(err, errForeign) {
				return nil, r.keepForeign(st, want, in, digest, fmt.Sprintf(
					"iteration %d of run %s was recorded from different input: "+
						"a line of iterations.jsonl loopkit did not write", want, id))
			}
			return res, err
		}
		return nil, r.keepForeign(st, want, in, digest, fmt.Sprintf(
			"iteration %d is not the next one of run %s (next is %d): "+
				"iterations.jsonl lacks lines --iteration %d expects", want, id, next, want))
	}
	r.dropTranscripts(st.run, in)
	review, err := r.reviewAttempt(st, next, in)
	if err != nil {
		return nil, err
	}
	it, err := r.commit(st, next, in, digest, review)
	if err != nil {
		return nil, err
	}
	r.dropSpool(in)
	return it, nil
}

// repeat answers --iteration N for a recorded N: a no-op when the stored
// record came from the same input, a conflict otherwise.
func (r *Recorder) repeat(id string, n int, digest string) (*Result, error) {
	var found *Result
	err := store.ScanFile(r.St.RunPath(id, store.IterationsFile), func(_ int, line []byte) error {
		var it record.IterationLog
		if json.Unmarshal(line, &it) == nil && it.Iteration == n {
			found = &Result{Log: &it, Line: append([]byte(nil), line...), Repeat: true}
			return errStop
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return nil, err
	}
	if found == nil {
		return nil, fmt.Errorf("%w: iteration %d of run %s is not in the log", ErrConflict, n, id)
	}
	if found.Log.InputDigest != digest {
		return nil, errForeign
	}
	return found, nil
}

// errForeign is a logged iteration whose input is not the one offered.
var errForeign = errors.New("recorded from different input")

// keepForeign answers --iteration N when line N of the log came from other
// input, or the log lacks lines before N: not a log loopkit's driver left
// (the agent can write the store, or run loop-record). The offered step is
// kept as an attempt of kind "conflict", so the real agent call is not
// lost; the log is left as it is and the caller fails.
func (r *Recorder) keepForeign(st *repaired, n int, in *record.Input, digest, why string) error {
	kept := "nothing kept (no step)"
	if in.Step != nil {
		r.dropTranscripts(st.run, in)
		res, err := r.appendAttempt(st, in.Step, digest, "conflict", n, true)
		switch {
		case err != nil:
			kept = "keeping the step failed: " + err.Error()
		case res.Attempt != nil:
			kept = fmt.Sprintf("this step is kept as attempt %d", res.Attempt.Attempt)
			r.dropSpool(&record.Input{Step: in.Step})
		default:
			kept = "this step is already kept as an attempt"
		}
	}
	if v := in.Validation; v != nil && v.ExitCode != nil {
		kept += fmt.Sprintf(", its validation exited %d", *v.ExitCode)
	}
	return fmt.Errorf("%w: %s (the agent can write the store); %s", ErrConflict, why, kept)
}

var errStop = errors.New("stop")

// commit writes the iteration folder, appends the log line (the commit
// point) and brings the derived files up to date.
func (r *Recorder) commit(st *repaired, n int, in *record.Input, digest string, review *record.Review) (*Result, error) {
	run := st.run
	id := run.RunID
	dir := r.St.IterationDir(id, n)
	if err := os.RemoveAll(dir); err != nil { // a leftover of a killed writer
		return nil, err
	}
	if _, err := r.St.MkdirRun(id, store.IterationsDir, iterDirName(n)); err != nil {
		return nil, err
	}
	now := r.nowMs()
	it := r.build(id, n, in, now)
	it.InputDigest = digest
	it.RunCreatedAt = run.CreatedAt
	it.Review = review
	if err := r.writeFolder(dir, it, in, GitLimit(&run.Settings)); err != nil {
		return nil, fmt.Errorf("iteration folder: %w", err)
	}
	line, err := record.Marshal(it)
	if err != nil {
		return nil, err
	}
	if err := store.AppendLine(r.St.RunPath(id, store.IterationsFile), line); err != nil {
		return nil, err
	}
	// Past the commit point the record is stored whatever happens: derived
	// files that cannot be written now are brought up to date by the next
	// writer's repair (run.json, written last, stays behind the log).
	res := &Result{Log: it, Line: line, Warning: st.stale}
	if st.stale == nil {
		if res.Warning = r.applyIteration(run, it, in); res.Warning == nil {
			res.Run = run
		}
	}
	r.copyOut(run)
	return res, nil
}

// dropTranscripts enforces transcripts=drop whoever made the records (a
// loop-step without the setting, a killed step parsed by a resume): the
// agent's words leave the step records, and its spooled streams are
// deleted before anything is placed in the run.
func (r *Recorder) dropTranscripts(run *record.Run, in *record.Input) {
	if run == nil || run.Settings.Transcripts != record.TranscriptsDrop {
		return
	}
	for _, s := range []*record.Step{in.Step, in.Review} {
		if s == nil {
			continue
		}
		for _, p := range []*string{s.StdoutFile, s.StderrFile} {
			if p != nil && r.inSpool(*p) {
				os.Remove(*p)
			}
		}
		s.DropTranscript()
	}
}

// dropSpool removes the spool entry of recorded streams, which now live in
// the iteration folder. Only files inside the store's spool/ are touched.
func (r *Recorder) dropSpool(in *record.Input) {
	for _, p := range spoolPaths(in) {
		if !r.inSpool(p) {
			continue
		}
		os.Remove(p)
		base := p[:len(p)-len(filepath.Ext(p))]
		os.Remove(base + ".json")
	}
	for _, s := range []*record.Step{in.Step, in.Review} {
		if s != nil && s.GitObjects != nil && r.inSpool(*s.GitObjects) {
			os.RemoveAll(*s.GitObjects)
		}
	}
}

func spoolPaths(in *record.Input) []string {
	var ps []string
	add := func(p *string) {
		if p != nil && *p != "" {
			ps = append(ps, *p)
		}
	}
	if v := in.Validation; v != nil {
		add(v.StdoutFile)
		add(v.StderrFile)
	}
	for _, s := range []*record.Step{in.Step, in.Review} {
		if s != nil {
			add(s.StdoutFile)
			add(s.StderrFile)
			add(s.PromptFile)
		}
	}
	return ps
}

// iterDirName is the folder name of iteration n.
func iterDirName(n int) string { return fmt.Sprintf("%03d", n) }

func parseIterDir(name string) (int, bool) {
	n, err := strconv.Atoi(name)
	return n, err == nil && n > 0 && name == iterDirName(n)
}
