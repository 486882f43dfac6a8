package artifacts

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
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
	// where the iterations in it end in the store's log (see mark)
	Offset int64  `json:"offset"`
	Tail   string `json:"tail,omitempty"`
	// the final verification's commands in it (verify.jsonl's first ones)
	Verifications int `json:"verifications,omitempty"`
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
	logs, err := d.sub("logs")
	if err != nil {
		return err
	}
	defer logs.Close()
	p := d.progress(s)
	if p == (progress{}) {
		d.dropTemps()
		logs.dropTemps()
	}
	its, _, err := s.iters.after(p.Iterations)
	if err != nil {
		return err
	}
	ats, _, err := s.attempts.after(p.Attempts)
	if err != nil {
		return err
	}
	if err := stepLogs(logs, s, its, ats); err != nil {
		return err
	}
	if err := combined(logs, s); err != nil {
		return err
	}
	if exists(s.file(store.ManifestFile)) {
		if err := d.write(store.ManifestFile, func(w io.Writer) error { _, err := copyFrom(w, s.file(store.ManifestFile)); return err }); err != nil {
			return err
		}
	}
	return d.setProgress(progress{Iterations: s.iters.end, Attempts: s.attempts.end})
}

var stepNumber = lazyre.New(`-step-([0-9]+)$`)

// stepLogs writes the output of each agent step of its (iterations) and
// ats (attempts) once, named by the step's number and phase.
func stepLogs(d *dir, s *source, its []iteration, ats []record.Attempt) error {
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
	for _, it := range its {
		if err := one(it.Agent, s.iterFile(it.Iteration, store.AgentStdout), s.iterFile(it.Iteration, store.AgentStderr)); err != nil {
			return err
		}
	}
	for _, a := range ats {
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
	its, from, err := s.iters.after(mark{N: st.Iterations, Offset: st.Offset, Tail: st.Tail})
	if err != nil {
		return err
	}
	if from.N != st.Iterations { // another run's leftover, or edited: start again
		st = combinedState{}
	}
	vs, err := s.st.ReadVerifications(s.run.RunID)
	if err != nil {
		return err
	}
	if st.Verifications > len(vs) {
		st = combinedState{}
	}
	if len(its) == 0 && len(vs) == st.Verifications && d.has("combined.log") {
		return nil
	}
	f, err := d.openAppend("combined.log")
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if fi.Size() < st.Bytes { // shorter than said: written again from the start
		st = combinedState{}
		if its, _, err = s.iters.after(mark{}); err != nil {
			return err
		}
	}
	if err := f.Truncate(st.Bytes); err != nil {
		return err
	}
	if _, err := f.Seek(st.Bytes, io.SeekStart); err != nil {
		return err
	}
	// each verification after the iteration it verified, as they happened
	nv := st.Verifications
	verified := func(upTo int) error {
		for ; nv < len(vs) && vs[nv].Iteration <= upTo; nv++ {
			if err := verifyBlock(f, s, vs[nv]); err != nil {
				return err
			}
		}
		return nil
	}
	for _, it := range its {
		if err := verified(it.Iteration - 1); err != nil {
			return err
		}
		if err := combinedBlocks(f, s, &it); err != nil {
			return err
		}
	}
	e := s.iters.end
	if err := verified(e.N); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	end, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return err
	}
	data, _ := json.Marshal(combinedState{Iterations: e.N, Bytes: end, Offset: e.Offset, Tail: e.Tail, Verifications: nv})
	return d.writeBytes(stateFile, data)
}

// verifyBlock is a final verification command's block: its output under
// `=== iteration N: final verification (exit CODE): COMMAND ===`.
func verifyBlock(w io.Writer, s *source, v *record.Verification) error {
	cmd := strings.Join(strings.Fields(v.Command), " ") // one header line
	if _, err := fmt.Fprintf(w, "=== iteration %d: final verification (exit %d): %s ===\n", v.Iteration, v.ExitCode, cmd); err != nil {
		return err
	}
	base := filepath.Join(s.st.RunPath(s.run.RunID, store.VerifyDir), fmt.Sprintf("%03d", v.Verification))
	if _, err := agentOutput(w, base+".stdout", base+".stderr"); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
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
