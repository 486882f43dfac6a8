// Package deadstep rebuilds the step record of a loop-step that died
// before printing it (killed with its driver), from the spool entry it
// left: the agent's stdout and stderr, its prompt and the entry's meta.
// The output is parsed by the same parsers loop-step uses, so the agent
// call's tokens and cost can be recorded as an interrupted attempt.
package deadstep

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/loopkit/loopkit/internal/agent"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
)

// stderrTail is how much of the agent's stderr is searched for an error or
// a usage-limit notice (as loop-step does).
const stderrTail = 16 << 10

// Rebuild returns the step record of the spool entry at base (a step's:
// base+".stdout", base+".stderr", ...) described by meta, or nil when the
// agent printed nothing: there is then no transcript to keep. The caller
// has checked that the entry's writer and its agent are gone.
func Rebuild(base string, meta store.SpoolMeta, warn agent.Warner) (*record.Step, error) {
	out, outSize, outTime, err := stat(base + ".stdout")
	if err != nil {
		return nil, err
	}
	_, errSize, errTime, err := stat(base + ".stderr")
	if err != nil {
		return nil, err
	}
	if outSize == 0 && errSize == 0 {
		return nil, nil
	}
	res := &agent.Result{}
	if out != "" {
		f, err := store.OpenRegular(out)
		if err != nil {
			return nil, err
		}
		res, err = agent.ParseOptions(io.LimitReader(f, outSize), agent.Options{Format: meta.Format, Binary: meta.Program, Warn: warn})
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	if errSize > 0 {
		if tail, err := readTail(base+".stderr", errSize, stderrTail); err == nil {
			res.ScanStderr(tail, time.Now())
		}
	}
	for _, bad := range res.Usage.Ignored { // dropped by the parser, call by call
		if warn != nil {
			warn("usage figure ignored", "why", bad)
		}
	}
	if err := agent.ApplyUsageFile(base+".usage.json", &res.Usage); err != nil {
		res.Usage.Ignored = append(res.Usage.Ignored, "usage file: "+err.Error())
		if warn != nil {
			warn("usage file ignored", "file", base+".usage.json", "err", err)
		}
	}
	for _, bad := range res.Usage.Range() {
		if warn != nil {
			warn("usage figure ignored", "why", bad)
		}
	}
	ended := max(outTime, errTime, meta.StartedAt)
	phase := meta.Phase
	if phase == "" {
		phase = "implementation"
	}
	why := "loop-step was killed before it finished; recovered from its spool entry"
	rec := &record.Step{
		Type: record.TypeStep, Command: meta.Command, Phase: phase,
		StartedAt: meta.StartedAt, EndedAt: ended, DurationMs: ended - meta.StartedAt,
		Attempts: 1, Format: res.Format,
		LLMInputTokens: res.InputTokens, LLMOutputTokens: res.OutputTokens,
		LLMCacheReadTokens: res.CacheReadTokens, LLMCacheCreationTokens: res.CacheCreationTokens,
		LLMReasoningTokens: res.ReasoningTokens, CostUSD: res.CostUSD,
		Model: res.Model, ToolCalls: res.ToolCalls, ToolCallsDropped: res.ToolCallsDropped,
		FinalMessage: res.FinalMessage, Error: &why,
		StdoutBytes: outSize, StderrBytes: errSize, UsageIgnored: res.Usage.Ignored,
		StepID: meta.StepID, // its commit writes the step's STEP_FINISHED
	}
	if rec.ToolCalls == nil {
		rec.ToolCalls = []record.ToolCall{}
	}
	src := "unknown"
	if rec.CostUSD != nil {
		src = "reported"
	}
	rec.CostSource = &src
	if res.SessionID != "" {
		rec.SessionID = &res.SessionID
	}
	if res.ErrorKind != "" {
		rec.ErrorKind = &res.ErrorKind
	}
	for _, p := range []struct {
		path string
		dst  **string
	}{{base + ".stdout", &rec.StdoutFile}, {base + ".stderr", &rec.StderrFile}, {base + ".prompt", &rec.PromptFile}} {
		if fi, err := os.Lstat(p.path); err == nil && fi.Mode().IsRegular() {
			path := p.path
			*p.dst = &path
		}
	}
	if fi, err := os.Lstat(base + ".git"); err == nil && fi.IsDir() {
		objects := base + ".git"
		rec.GitObjects = &objects // removed with the entry once recorded
	}
	return rec, nil
}

// stat returns path (or "" when there is no such file), its size and its
// modification time in ms.
func stat(path string) (string, int64, int64, error) {
	fi, err := os.Lstat(path)
	switch {
	case os.IsNotExist(err):
		return "", 0, 0, nil
	case err != nil:
		return "", 0, 0, err
	case !fi.Mode().IsRegular():
		return "", 0, 0, fmt.Errorf("%s is not a regular file", path)
	}
	return path, fi.Size(), fi.ModTime().UnixMilli(), nil
}

// readTail reads the last n bytes of the first size bytes of path.
func readTail(path string, size, n int64) ([]byte, error) {
	f, err := store.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	off := max(0, size-n)
	buf := make([]byte, size-off)
	k, err := f.ReadAt(buf, off)
	if err != nil && err != io.EOF {
		return nil, err
	}
	return buf[:k], nil
}
