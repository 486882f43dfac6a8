package recorder

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/loopkit/loopkit/internal/progress"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/report"
	"github.com/loopkit/loopkit/internal/safefile"
	"github.com/loopkit/loopkit/internal/store"
)

// maxTaskBytes bounds how much of the task file a report quotes.
const maxTaskBytes = 64 << 10

// collect streams the run's log into a report collector.
func (r *Recorder) collect(id string) (*report.Collector, error) {
	c := &report.Collector{}
	err := store.ScanFile(r.St.RunPath(id, store.IterationsFile), func(lineNo int, line []byte) error {
		it := &record.IterationLog{}
		if err := json.Unmarshal(line, it); err != nil {
			return fmt.Errorf("%s line %d: %w", store.IterationsFile, lineNo, err)
		}
		if err := store.OutOfSequence(store.IterationsFile, lineNo, it.Iteration); err != nil {
			return err
		}
		c.Add(it, r.St.IterationDir(id, it.Iteration))
		return nil
	})
	return c, err
}

// readHead reads at most max bytes of a file; a missing file reads as "".
func readHead(path string, max int64) string {
	// a FIFO named here would block the writer, holding the append lock
	f, err := safefile.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	b, _ := io.ReadAll(io.LimitReader(f, max))
	return record.Text(b)
}

// writeStuckReport writes stuck.md from the log (append lock held).
func (r *Recorder) writeStuckReport(run *record.Run) error {
	c, err := r.collect(run.RunID)
	if err != nil {
		return err
	}
	task := readHead(run.Settings.Prompt, maxTaskBytes)
	doc := report.Stuck(run, task, c)
	// what a person (or an earlier stuck agent) wrote survives the rewrite
	path := r.St.RunPath(run.RunID, store.StuckFile)
	if old, err := safefile.ReadFile(path, safefile.DocMax); err == nil {
		if kept := report.WrittenHypotheses(string(old)); kept != "" {
			doc, _ = report.ReplaceSection(doc, "Hypotheses", kept)
		}
	}
	return store.WriteFileAtomic(path, []byte(doc), store.FileMode)
}

// Snapshot writes context/context_NNN.md for a milestone and points
// context/context_latest.md at it. It returns the snapshot's path.
func (r *Recorder) Snapshot(id, milestone string) (string, error) {
	var path string
	_, err := r.Update(id, func(run *record.Run) error {
		dir := r.St.RunPath(id, store.ContextDir)
		if _, err := r.St.MkdirRun(id, store.ContextDir); err != nil {
			return err
		}
		n := nextSnapshot(dir)
		c, err := r.collect(id)
		if err != nil {
			return err
		}
		logs, err := progress.Load(r.St, id, progress.DefaultLimits().MaxEntries)
		if err != nil {
			return err
		}
		block := progress.Render(logs, progress.DefaultLimits())
		prompt := run.Settings.Prompt
		if len(c.Rows) > 0 {
			last := filepath.Join(r.St.IterationDir(id, c.Rows[len(c.Rows)-1].Iteration), PromptFile)
			if _, err := os.Stat(last); err == nil {
				prompt = last
			}
		}
		doc := report.Snapshot(n, milestone, time.Now(), run, readHead(prompt, maxTaskBytes), block, c.Files())
		name := fmt.Sprintf("context_%03d.md", n)
		path = filepath.Join(dir, name)
		if err := store.WriteFileAtomic(path, []byte(doc), store.FileMode); err != nil {
			return err
		}
		return pointLatest(dir, name, []byte(doc))
	})
	return path, err
}

func nextSnapshot(dir string) int {
	entries, _ := os.ReadDir(dir)
	n := 0
	for _, e := range entries {
		s := strings.TrimSuffix(strings.TrimPrefix(e.Name(), "context_"), ".md")
		if k, err := strconv.Atoi(s); err == nil && k > n {
			n = k
		}
	}
	return n + 1
}

// latestTemp is pointLatest's new link before its rename (removeTemps
// sweeps one a killed recorder left).
const latestTemp = ".context_latest.tmp"

// symlink is os.Symlink (a test stands in for a file system without links).
var symlink = os.Symlink

// pointLatest replaces context_latest.md with a relative symlink to name,
// atomically (a new link renamed over the old one). A file system without
// symlinks (FAT, exFAT) gets a copy of doc, the snapshot, in its place.
func pointLatest(dir, name string, doc []byte) error {
	tmp := filepath.Join(dir, latestTemp)
	os.Remove(tmp)
	if err := symlink(name, tmp); err != nil {
		if errors.Is(err, syscall.EPERM) || errors.Is(err, errors.ErrUnsupported) {
			return store.WriteFileAtomic(filepath.Join(dir, "context_latest.md"), doc, store.FileMode)
		}
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, "context_latest.md")); err != nil {
		return err
	}
	return store.SyncDir(dir)
}

// StuckAgentHeading introduces the stuck agent's hypotheses in stuck.md.
const StuckAgentHeading = "### From the stuck agent"

// FillHypotheses adds text (a follow-up agent's answer) to the Hypotheses
// section of the run's stuck.md under a sub-heading of its own: what a
// person wrote there stays, the placeholder goes.
func (r *Recorder) FillHypotheses(id, text string) error {
	_, err := r.Update(id, func(run *record.Run) error {
		path := r.St.RunPath(id, store.StuckFile)
		doc, err := safefile.ReadFile(path, safefile.DocMax)
		if err != nil {
			return fmt.Errorf("no stuck report to fill in: %w", err)
		}
		body := StuckAgentHeading + "\n\n" + record.Demoted(strings.TrimSpace(text))
		if kept := report.WrittenHypotheses(string(doc)); kept != "" {
			body = kept + "\n\n" + body
		}
		out, ok := report.ReplaceSection(string(doc), "Hypotheses", body)
		if !ok {
			return fmt.Errorf("%s has no Hypotheses section", path)
		}
		return store.WriteFileAtomic(path, []byte(out), store.FileMode)
	})
	return err
}
