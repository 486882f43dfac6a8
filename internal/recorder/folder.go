package recorder

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/loopkit/loopkit/internal/gitrun"
	"github.com/loopkit/loopkit/internal/gitstore"
	"github.com/loopkit/loopkit/internal/limits"
	"github.com/loopkit/loopkit/internal/proc"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/safefile"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/wfile"
)

// LogTailBytes is how much of each stream executor.log and guard.log keep.
const LogTailBytes = 1 << 20

// Files of an iteration folder: the store names them (readers use the
// store's names; these stay for code written against the writer's).
const (
	ValidationStdout = store.ValidationStdout
	ValidationStderr = store.ValidationStderr
	AgentStdout      = store.AgentStdout
	AgentStderr      = store.AgentStderr
	PromptFile       = store.PromptFile
	MetaFile         = store.MetaFile
	OutputFile       = store.OutputFile
	GuardLog         = store.GuardLog
	ExecutorLog      = store.ExecutorLog
	RunnerErrorLog   = store.RunnerErrorLog
	ChangesPatch     = store.ChangesPatch
)

// writeFolder fills the iteration folder before the commit point. The
// streams are hard-linked from spool/ (the spool entry stays until after
// the commit, so a writer killed here can be run again with the same input).
// The trees' git may run gitLimit at most (0: no limit): see GitLimit.
func (r *Recorder) writeFolder(dir string, it *record.IterationLog, in *record.Input, gitLimit time.Duration) error {
	// The trees (git processes: CPU) are taken while the streams are placed
	// (waits on fsync): they write different files, and of it only
	// FilesChanged and DiffDigest, which nothing reads before both are done.
	// meta.json and output.json need neither, and are written beside them.
	trees := make(chan error, 1)
	go func() {
		if gitLimit > 0 {
			defer time.AfterFunc(gitLimit, gitrun.Abort).Stop()
		}
		trees <- r.trees(dir, it, in)
	}()
	err := placeStreams(r, dir, in)
	if err == nil {
		err = writeJSON(filepath.Join(dir, MetaFile), metaOf(it, in))
	}
	if err == nil {
		summary := ""
		if it.Agent != nil {
			summary = it.Agent.FinalMessage
		}
		err = writeJSON(filepath.Join(dir, OutputFile), map[string]string{"status": metaStatus(it), "summary": summary})
	}
	terr := <-trees
	if terr != nil && diskRefused(terr) {
		gitstore.SweepTemp(r.St.RunDir(it.RunID)) // what a git that died on it left
	}
	if terr != nil && diskRefused(terr) && err == nil {
		err = fmt.Errorf("iteration tree: %w", terr) // the disk failing: no commit
	} else if terr != nil {
		r.Log.Warn("the iteration's tree and changes were not recorded", "err", terr)
		if it.DiffDigest == "" && (in.Validation == nil || in.Validation.FilesChanged == nil) {
			it.FilesChanged = nil // unknown: [] would say the agent changed nothing
		}
	}
	if err != nil {
		return err
	}
	return store.SyncFolder(dir)
}

// placeStreams puts the step's and the validation's streams, the prompt and
// the two stream logs into the folder, each fsynced.
func placeStreams(r *Recorder, dir string, in *record.Input) error {
	if v := in.Validation; v != nil {
		if err := r.place(v.StdoutFile, v.StdoutBytes, v.StrayWriter, v.Stdout, filepath.Join(dir, ValidationStdout)); err != nil {
			return err
		}
		if err := r.place(v.StderrFile, v.StderrBytes, v.StrayWriter, v.Stderr, filepath.Join(dir, ValidationStderr)); err != nil {
			return err
		}
		if err := writeStreamsLog(dir, GuardLog, ValidationStdout, ValidationStderr, v.TimedOut, v.Error); err != nil {
			return err
		}
		if v.Error != nil {
			if err := writeSynced(filepath.Join(dir, RunnerErrorLog), []byte("runner error: "+*v.Error+"\n")); err != nil {
				return err
			}
		}
	}
	if s := in.Step; s != nil && s.TranscriptDropped {
		if s.PromptFile != nil {
			if err := r.place(s.PromptFile, -1, false, "", filepath.Join(dir, PromptFile)); err != nil {
				return err
			}
		}
	} else if s != nil {
		if err := r.place(s.StdoutFile, s.StdoutBytes, s.StrayWriter, "", filepath.Join(dir, AgentStdout)); err != nil {
			return err
		}
		if err := r.place(s.StderrFile, s.StderrBytes, s.StrayWriter, "", filepath.Join(dir, AgentStderr)); err != nil {
			return err
		}
		if s.PromptFile != nil {
			if err := r.place(s.PromptFile, -1, false, "", filepath.Join(dir, PromptFile)); err != nil {
				return err
			}
		}
		if err := writeStreamsLog(dir, ExecutorLog, AgentStdout, AgentStderr, s.TimedOut, s.Error); err != nil {
			return err
		}
	}
	return nil
}

// diskRefused: the disk refused a write (EIO, ENOSPC, EDQUOT, EROFS; EFBIG
// past ulimit -f), or git could not start under a limit (limits.Hint).
// The iteration's tree is best effort (a repository git cannot read is a
// warning), but such an error must reach the caller.
func diskRefused(err error) bool {
	if limits.Hint(err) != "" { // a git that could not start: no file or process left
		return true
	}
	for _, e := range []syscall.Errno{syscall.EIO, syscall.ENOSPC, syscall.EDQUOT, syscall.EROFS, syscall.EFBIG} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

func syncFile(path string) error {
	f, err := wfile.Open(path, os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := wfile.Check(wfile.Sync, path); err != nil {
		return err
	}
	return f.Sync()
}

// openOwn opens a file of an iteration folder to write it, through no link
// (a symlink, or a hard link to a file outside the store that something
// the agent left running may plant while the folder is made).
func openOwn(path string, flag int) (*wfile.File, error) {
	f, err := safefile.OpenFile(path, flag, store.FileMode)
	if err != nil {
		return nil, err
	}
	return &wfile.File{File: f}, nil
}

func writeSynced(path string, data []byte) error {
	f, err := openOwn(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func writeJSON(path string, v any) error {
	data, err := record.Marshal(v)
	if err != nil {
		return err
	}
	return writeSynced(path, append(data, '\n'))
}

// writeStreamsLog writes the "=== stdout === / === stderr ===" log
// from the last LogTailBytes of each placed stream.
func writeStreamsLog(dir, name, outName, errName string, timedOut bool, errMsg *string) error {
	var b bytes.Buffer
	for _, s := range []struct{ head, file string }{{"=== stdout ===\n", outName}, {"\n=== stderr ===\n", errName}} {
		b.WriteString(s.head)
		tail, _, err := proc.FileTail(filepath.Join(dir, s.file), LogTailBytes)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		b.Write(tail)
		if len(tail) > 0 && tail[len(tail)-1] != '\n' {
			b.WriteByte('\n')
		}
	}
	if timedOut && errMsg != nil {
		fmt.Fprintf(&b, "\n=== %s ===\n", *errMsg)
	}
	return writeSynced(filepath.Join(dir, name), b.Bytes())
}

// meta is the iteration's meta.json.
type meta struct {
	RunID      string  `json:"run_id"`
	Iter       int     `json:"iter"`
	NodeID     *string `json:"node_id"`
	Status     string  `json:"status"`
	Guard      string  `json:"guard"`
	StartedAt  *int64  `json:"started_at"`
	EndedAt    *int64  `json:"ended_at"`
	DurationMs int64   `json:"duration_ms"`
}

func metaStatus(it *record.IterationLog) string {
	if it.Status == record.StatusPass {
		return "done"
	}
	return "retry"
}

func metaOf(it *record.IterationLog, in *record.Input) meta {
	m := meta{RunID: it.RunID, Iter: it.Iteration, Status: metaStatus(it), Guard: "skipped"}
	var start, end int64
	if s := in.Step; s != nil {
		start, end = s.StartedAt, s.EndedAt
	}
	if v := in.Validation; v != nil {
		m.Guard = "fail"
		if it.Status == record.StatusPass {
			m.Guard = "pass"
		}
		if start == 0 || (v.StartedAt != 0 && v.StartedAt < start) {
			start = v.StartedAt
		}
		end = max(end, v.EndedAt)
	}
	if start != 0 {
		m.StartedAt = &start
	}
	if end != 0 {
		m.EndedAt = &end
		if start != 0 {
			m.DurationMs = end - start
		}
	}
	return m
}
