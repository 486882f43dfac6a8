package view

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/loopkit/loopkit/internal/safefile"
	"github.com/loopkit/loopkit/internal/store"
)

// Tail streams the raw output of a run's steps while they run: the spool
// files loop-step and loop-validate write (agent, then validation), read
// through descriptors kept open so nothing is lost when loop-record moves
// them into the iteration folder (a hard link: the same file, or, when a
// stray writer held a stream, a copy of its recorded bytes: a prefix of
// the spool file). Output that was recorded between two polls is read from
// the iteration folder. It never writes anything.
type Tail struct {
	St    *store.Store
	RunID string
	// Out and Err receive the streams' stdout and stderr bytes as written.
	Out, Err io.Writer
	// Header announces a new source ("agent: CMD"); nil prints none.
	Header func(source, command string) error
	// Started, when set, learns of each new spool entry of the run: its
	// source and meta (command, start time), for an elapsed-time display.
	Started func(source string, meta store.SpoolMeta)
	// Event, when set, receives the agent's stdout line by line instead of
	// Out (--json); every other stream goes to it as text lines too.
	Event func(ev TailEvent) error
	// Notice, when set, receives what the agent's retry notices say, as
	// they come ("agent retrying: overloaded (529), attempt 3/10, next in
	// 9 s"): a CLI's own retries read as a line, not a wall of JSON.
	Notice   func(text string) error
	Flush    func() error
	Interval time.Duration
	// KeepUndriven goes on following a run no driver drives (paused,
	// interrupted) until it ends: a view that can resume it (the TUI).
	KeepUndriven bool
	// Backlog, when set, starts each stream at most that many bytes
	// before its end, at a line's start: a view that keeps the last
	// screens (the TUI) need not read an agent's 200 MB first.
	Backlog int64
	// Ended, when set, hears of a run that had ended before the tail
	// began: no step of it will run, and a silent exit 0 reads as a tail
	// of nothing.
	Ended func(ri *RunInfo) error

	entries map[string]*tailEntry
	// opened are the spool files read so far that no recorded file has
	// been matched to yet: an iteration's file that is one of them, or a
	// copy of one's first bytes, was printed already.
	opened []*tailFile
	shown  int // iterations whose folder has been checked
	polls  int
}

// TailEvent is one line of a streamed source, for --json.
type TailEvent struct {
	Source string          `json:"source"` // agent or validation
	Stream string          `json:"stream"` // stdout, stderr, or notice (what a retry notice says)
	Event  json.RawMessage `json:"event,omitempty"`
	Text   *string         `json:"text,omitempty"`
	// Cut says the line was longer than TailLineMax: Text is its start.
	Cut bool `json:"cut,omitempty"`
}

type tailEntry struct {
	base, source string
	meta         store.SpoolMeta
	files        [2]*tailFile
	done         bool
}

type tailFile struct {
	path    string
	source  string
	stream  string
	f       *os.File
	off     int64
	partial []byte // --json: a line not yet ended
	scan    []byte // Notice: the agent's line not yet ended (text mode)
	long    bool   // scan overflowed: the rest of this line is skipped
	// skipping: --json is past TailLineMax of a line, up to its newline
	skipping bool
	// drained is the poll that read the file to its end after its spool
	// entry went away (0 while it may grow).
	drained int
}

// Run streams until the run has ended (nil), is no longer driven (paused
// or interrupted: *Undriven) or ctx is done.
func (t *Tail) Run(ctx context.Context) error {
	t.entries = map[string]*tailEntry{}
	if ri, err := LoadRun(t.St, t.RunID); err == nil {
		t.shown = ri.Run.Iteration
	}
	defer t.closeAll()
	w := &RunWatch{St: t.St, ID: t.RunID, KeepUndriven: t.KeepUndriven}
	for first := true; ; first = false {
		// Read the status first: what was spooled before the run ended is
		// then surely seen by the poll below.
		ri, done, end := w.Poll()
		if err := t.poll(ri); err != nil {
			return err
		}
		if err := t.Flush(); err != nil {
			return err
		}
		if done && end == nil && first && t.Ended != nil {
			return t.Ended(ri)
		}
		if done {
			return end
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(t.Interval):
		}
	}
}

func (t *Tail) poll(ri *RunInfo) error {
	t.polls++
	present, fresh := t.scanSpool()
	// What the known entries gained comes first, then iterations recorded
	// meanwhile, then the entries new since the last poll: a step that
	// ended and the next that began between two polls read in that order.
	if err := t.copyEntries(present, func(e *tailEntry) bool { return !slices.Contains(fresh, e) }); err != nil {
		return err
	}
	if ri != nil {
		// Iterations recorded between two polls: print what was never opened.
		for ; t.shown < ri.Run.Iteration; t.shown++ {
			if err := t.recorded(t.shown + 1); err != nil {
				return err
			}
		}
	}
	for _, e := range fresh {
		if t.Started != nil {
			t.Started(e.source, e.meta)
		}
		if t.Header != nil {
			if err := t.Header(e.source, e.meta.Command); err != nil {
				return err
			}
		}
	}
	if err := t.copyEntries(present, func(e *tailEntry) bool { return slices.Contains(fresh, e) }); err != nil {
		return err
	}
	// A file drained before this poll and matched to no iteration (an
	// attempt's, or a cleaned entry's) never will be: ri above was read
	// after its entry went away.
	t.opened = slices.DeleteFunc(t.opened, func(f *tailFile) bool {
		if f.drained > 0 && f.drained < t.polls {
			f.close()
			return true
		}
		return false
	})
	return nil
}

// scanSpool lists the spool entries present and registers the run's new
// ones (in the order they began), opening their files so that a recorded
// iteration's copy of them is known as read.
func (t *Tail) scanSpool() (present map[string]bool, fresh []*tailEntry) {
	metas, _ := filepath.Glob(filepath.Join(t.St.SpoolDir(), "*.json"))
	slices.Sort(metas) // names begin with the start time in ms
	present = map[string]bool{}
	for _, m := range metas {
		base := strings.TrimSuffix(m, ".json")
		present[base] = true
		if _, ok := t.entries[base]; ok {
			continue
		}
		source := ""
		switch {
		case strings.HasSuffix(base, ".step"):
			source = "agent"
		case strings.HasSuffix(base, ".validate"):
			source = "validation"
		default:
			continue
		}
		data, err := safefile.ReadFile(m, spoolMetaMax)
		if err != nil {
			continue // recorded and removed meanwhile, or planted: not a meta
		}
		var meta store.SpoolMeta
		if json.Unmarshal(data, &meta) != nil || meta.RunID != t.RunID {
			continue
		}
		e := &tailEntry{base: base, source: source, meta: meta}
		e.files[0] = &tailFile{path: base + ".stdout", source: source, stream: "stdout"}
		e.files[1] = &tailFile{path: base + ".stderr", source: source, stream: "stderr"}
		for _, f := range e.files {
			t.open(f)
		}
		t.entries[base] = e
		fresh = append(fresh, e)
	}
	return present, fresh
}

// copyEntries copies what the entries that pick selects gained, in the
// order they began, and drains those whose spool entry went away.
func (t *Tail) copyEntries(present map[string]bool, pick func(*tailEntry) bool) error {
	bases := make([]string, 0, len(t.entries))
	for b, e := range t.entries {
		if !e.done && pick(e) {
			bases = append(bases, b)
		}
	}
	slices.Sort(bases)
	for _, b := range bases {
		e := t.entries[b]
		gone := !present[b]
		for _, f := range e.files {
			if err := t.copy(e.source, f, gone); err != nil {
				return err
			}
		}
		if gone { // recorded (or cleaned): drained above, nothing more comes
			e.done = true
			for _, f := range e.files {
				f.drained = t.polls
				if !slices.Contains(t.opened, f) {
					f.close()
				}
			}
		}
	}
	return nil
}

// open opens f once it exists (a link or a FIFO planted in the spool or
// a folder is never read); a spool file is then among those read.
func (t *Tail) open(f *tailFile) {
	if f.f != nil {
		return
	}
	fh, err := safefile.Open(f.path)
	if err != nil {
		return // not created yet, or already moved: the folder has it
	}
	f.f = fh
	if f.source != "" {
		t.opened = append(t.opened, f)
	}
	if fi, err := fh.Stat(); err == nil && t.Backlog > 0 && fi.Size() > t.Backlog {
		f.off = lineAfter(fh, fi.Size()-t.Backlog)
	}
}

// lineAfter is the offset of the first line that starts at or after off
// in f, or off when the rest is one line.
func lineAfter(f *os.File, off int64) int64 {
	if off == 0 {
		return 0
	}
	buf := make([]byte, 64<<10)
	for at := off - 1; ; at += int64(len(buf)) {
		n, err := f.ReadAt(buf, at)
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			return at + int64(i) + 1
		}
		if err != nil || n == 0 {
			return off
		}
	}
}

// recorded prints iteration n's streams that were never seen in the spool.
func (t *Tail) recorded(n int) error {
	dir := t.St.IterationDir(t.RunID, n)
	for _, s := range []struct{ name, source, stream string }{
		{"agent.stdout", "agent", "stdout"}, {"agent.stderr", "agent", "stderr"},
		{"validation.stdout", "validation", "stdout"}, {"validation.stderr", "validation", "stderr"},
	} {
		path := filepath.Join(dir, s.name)
		fi, err := os.Lstat(path)
		if err != nil || !fi.Mode().IsRegular() || fi.Size() == 0 || t.printed(s.source, s.stream, path, fi) {
			continue
		}
		if t.Header != nil && s.stream == "stdout" {
			if err := t.Header(s.source, fmt.Sprintf("iteration %d, as recorded", n)); err != nil {
				return err
			}
		}
		f := &tailFile{path: path, stream: s.stream} // no source: not a spool file
		if err := t.copy(s.source, f, true); err != nil {
			return err
		}
		f.close()
	}
	return nil
}

// printed reports whether the recorded file at path is a spool file this
// tail read (the same file, or a copy of its first bytes), and forgets
// that spool file: it is matched to one recorded file only.
func (t *Tail) printed(source, stream, path string, fi os.FileInfo) bool {
	for i, f := range t.opened {
		if f.source != source || f.stream != stream || f.f == nil {
			continue
		}
		ofi, err := f.f.Stat()
		if err != nil || !os.SameFile(ofi, fi) && !prefixOf(path, f.f, fi.Size()) {
			continue
		}
		t.opened = slices.Delete(t.opened, i, i+1)
		if f.drained > 0 {
			f.close()
		}
		return true
	}
	return false
}

// prefixOf reports whether the n bytes of the file at path are the first
// n bytes of spool (which may hold more: a stray writer's).
func prefixOf(path string, spool *os.File, n int64) bool {
	rec, err := safefile.Open(path)
	if err != nil {
		return false
	}
	defer rec.Close()
	a, b := make([]byte, 64<<10), make([]byte, 64<<10)
	for off := int64(0); off < n; {
		k := int(min(int64(len(a)), n-off))
		if _, err := io.ReadFull(rec, a[:k]); err != nil {
			return false
		}
		if _, err := spool.ReadAt(b[:k], off); err != nil || !bytes.Equal(a[:k], b[:k]) {
			return false
		}
		off += int64(k)
	}
	return true
}

func (f *tailFile) close() {
	if f.f != nil {
		f.f.Close()
		f.f = nil
	}
}

func (t *Tail) closeAll() {
	for _, e := range t.entries {
		for _, f := range e.files {
			f.close()
		}
	}
}
