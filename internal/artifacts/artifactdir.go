package artifacts

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/loopkit/loopkit/internal/lazyre"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
)

// combinedState is how far logs/combined.log has got: the iterations in
// it and its length then. Appends past that length are a killed writer's,
// cut off before the next append.
type combinedState struct {
	Iterations int   `json:"iterations"`
	Bytes      int64 `json:"bytes"`
}

const stateFile = ".combined.json"

// writeArtifactDir brings base/runs/<id>/ up to date (the verification
// artifacts of the artifacts specification): manifest.json (the store's,
// one entry per verification), logs/combined.log and
// logs/step-NN-<phase>.log per agent step.
func writeArtifactDir(base string, s *source) error {
	d, err := openDir(base, "runs", s.run.RunID)
	if err != nil {
		return err
	}
	defer d.Close()
	d.dropTemps()
	logs, err := d.sub("logs")
	if err != nil {
		return err
	}
	defer logs.Close()
	logs.dropTemps()
	if err := stepLogs(logs, s); err != nil {
		return err
	}
	if err := combined(logs, s); err != nil {
		return err
	}
	if !exists(s.file(store.ManifestFile)) {
		return nil
	}
	return d.write(store.ManifestFile, func(w io.Writer) error { _, err := copyFrom(w, s.file(store.ManifestFile)); return err })
}

var stepNumber = lazyre.New(`-step-([0-9]+)$`)

// stepLogs writes each agent step's output once, named by the step's
// number and phase.
func stepLogs(d *dir, s *source) error {
	one := func(ag *record.Agent, stdout, stderr string) error {
		if ag == nil {
			return nil
		}
		m := stepNumber.FindStringSubmatch(ag.StepID)
		if m == nil || !strings.HasPrefix(ag.StepID, s.run.RunID+"-step-") {
			return nil // a step of a record older than step ids
		}
		n, _ := strconv.Atoi(m[1])
		name := fmt.Sprintf("step-%02d-%s.log", n, phaseName(ag.Phase))
		if d.has(name) || (!exists(stdout) && !exists(stderr)) {
			return nil
		}
		return d.write(name, func(w io.Writer) error { _, err := agentOutput(w, stdout, stderr); return err })
	}
	for _, it := range s.iters {
		if err := one(it.Agent, s.iterFile(it.Iteration, store.AgentStdout), s.iterFile(it.Iteration, store.AgentStderr)); err != nil {
			return err
		}
	}
	for _, a := range s.attempts {
		if err := one(a.Agent, s.attemptFile(a.Attempt, store.AgentStdout), s.attemptFile(a.Attempt, store.AgentStderr)); err != nil {
			return err
		}
	}
	return nil
}

// phaseName keeps a phase to letters, digits and '_' for a file name.
func phaseName(p string) string {
	out := strings.Map(func(c rune) rune {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c >= 'A' && c <= 'Z' {
			return c
		}
		return '_'
	}, p)
	if out == "" {
		return "agent"
	}
	return out
}

// combined appends the iterations not yet in logs/combined.log: for each,
// the agent's output then the validation's, each block under a
// `=== iteration N: PHASE ===` line. The state is written after the
// appends are synced; a kill in between is cut off by the next call.
func combined(d *dir, s *source) error {
	var st combinedState
	if data, err := d.readEnd(stateFile, 4096); err == nil {
		if json.Unmarshal(data, &st) != nil || st.Iterations < 0 || st.Bytes < 0 {
			st = combinedState{}
		}
	}
	if st.Iterations > len(s.iters) { // another run's leftover, or edited: start again
		st = combinedState{}
	}
	if st.Iterations == len(s.iters) && d.has("combined.log") {
		return nil
	}
	f, err := d.root.OpenFile("combined.log", os.O_RDWR|os.O_CREATE|noFollow, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s/combined.log is not a regular file; move it away", d.path)
	}
	if fi.Size() < st.Bytes {
		st = combinedState{} // shorter than said: written again from the start
	}
	if err := f.Truncate(st.Bytes); err != nil {
		return err
	}
	if _, err := f.Seek(st.Bytes, io.SeekStart); err != nil {
		return err
	}
	for _, it := range s.iters[st.Iterations:] {
		if err := combinedBlocks(f, s, &it); err != nil {
			return err
		}
	}
	if err := f.Sync(); err != nil {
		return err
	}
	end, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return err
	}
	data, _ := json.Marshal(combinedState{Iterations: len(s.iters), Bytes: end})
	return d.writeBytes(stateFile, data)
}

func combinedBlocks(w io.Writer, s *source, it *iteration) error {
	n := it.Iteration
	if it.Agent != nil {
		fmt.Fprintf(w, "=== iteration %d: %s ===\n", n, phaseName(it.Agent.Phase))
		kept, err := agentOutput(w, s.iterFile(n, store.AgentStdout), s.iterFile(n, store.AgentStderr))
		if err != nil {
			return err
		}
		if !kept {
			io.WriteString(w, "(the agent's output is not kept: transcripts=drop)\n")
		}
		io.WriteString(w, "\n")
	}
	if _, err := fmt.Fprintf(w, "=== iteration %d: validation (exit %d) ===\n", n, it.ExitCode); err != nil {
		return err
	}
	if _, err := agentOutput(w, s.iterFile(n, store.ValidationStdout), s.iterFile(n, store.ValidationStderr)); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
