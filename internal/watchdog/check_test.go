package watchdog

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/log"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/recorder"
	"github.com/loopkit/loopkit/internal/runconfig"
	"github.com/loopkit/loopkit/internal/store"
)

func newRun(t testing.TB, prompt string) (*recorder.Recorder, string) {
	t.Helper()
	dir := t.TempDir()
	st, _ := store.Open(filepath.Join(dir, ".loop"))
	r := &recorder.Recorder{St: st, Log: log.New(io.Discard)}
	p := filepath.Join(dir, "TASK.md")
	if err := os.WriteFile(p, []byte(prompt), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := r.EnsureRun("r1", "r1"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Update("r1", func(run *record.Run) error {
		run.Settings.Prompt = p
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return r, p
}

func recordFail(t testing.TB, r *recorder.Recorder, out string) {
	t.Helper()
	v, _ := json.Marshal(map[string]any{"type": "validation", "command": "go test ./...", "exit_code": 1, "stdout": out})
	in, err := record.DecodeInput(append(v, '\n'))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Record("r1", in, 0); err != nil {
		t.Fatal(err)
	}
}

// The same failure three times rewrites the prompt; after the rewrite the
// signals look only at the iterations that ran with the new prompt; with
// the rewrites used up the next firing says stuck.
func TestCheckRewritesThenStuck(t *testing.T) {
	r, task := newRun(t, "Fix the tests.\n")
	set := Settings{K: 2, MaxRewrites: 2}
	var got []string
	for i, out := range []string{goFail1, goFail2, goFail3, goFail1, goFail2, goFail3, goFail1, goFail2, goFail3} {
		recordFail(t, r, out)
		act, err := Check(r.St, r, "r1", set)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, act.Do)
		if i == 2 {
			if act.Prompt != r.St.RunPath("r1", "prompt.rewrite.1.txt") || act.Snapshot == "" {
				t.Errorf("first rewrite: %+v", act)
			}
			text, _ := os.ReadFile(act.Prompt)
			if !strings.HasPrefix(string(text), "Fix the tests.\n") || !strings.Contains(string(text), "verification_failed") || !strings.Contains(string(text), "Add(2, 2) = 0, want 4") {
				t.Errorf("rewritten prompt:\n%s", text)
			}
		}
		// a second check of the same iteration changes nothing
		again, err := Check(r.St, r, "r1", set)
		if err != nil || again.Do != DoContinue || again.Prompt != act.Prompt {
			t.Errorf("second check of iteration %d: %+v %v", i+1, again, err)
		}
	}
	want := "continue continue rewrite continue continue rewrite continue continue stuck"
	if strings.Join(got, " ") != want {
		t.Errorf("actions %v, want %s", got, want)
	}
	ev, _ := os.ReadFile(r.St.RunPath("r1", store.EventsFile))
	if n := bytes.Count(ev, []byte(`"type":"WATCHDOG_REWRITE"`)); n != 2 {
		t.Errorf("%d WATCHDOG_REWRITE events, want 2", n)
	}
	if n := bytes.Count(ev, []byte(`"type":"WATCHDOG_SIGNAL"`)); n != 3 {
		t.Errorf("%d WATCHDOG_SIGNAL events, want 3", n)
	}
	if !bytes.Contains(ev, []byte(`"prompt_before":"`+task+`"`)) {
		t.Errorf("no prompt_before naming the task:\n%s", ev)
	}
	run, _ := r.St.ReadRun("r1")
	if run.Watchdog == nil || run.Watchdog.Rewrites != 2 || len(run.Watchdog.Fired) != 3 || run.Watchdog.Fired[2].Iteration != 9 {
		t.Errorf("run.json watchdog: %+v", run.Watchdog)
	}
}

func TestCheckOff(t *testing.T) {
	r, _ := newRun(t, "x")
	for _, out := range []string{goFail1, goFail2, goFail3} {
		recordFail(t, r, out)
	}
	act, err := Check(r.St, r, "r1", Settings{Off: true, K: 2})
	if err != nil || act.Do != DoContinue || len(act.Signals) != 0 {
		t.Errorf("off: %+v %v", act, err)
	}
}

func TestSettingsOf(t *testing.T) {
	set := runconfig.MustFromMap(map[string]string{"watchdog_k": "3", "max_rewrites": "0"})
	if s := SettingsOf(&set); s.K != 3 || s.MaxRewrites != 0 || s.Off {
		t.Errorf("%+v", s)
	}
	for _, bad := range []map[string]string{{"watchdog": "maybe"}, {"watchdog_k": "0"}, {"max_rewrites": "two"}} {
		if _, err := runconfig.FromMap(bad); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

// A check where nothing fires writes nothing: asked again it decides the
// same, and each iteration is spared a run.json write (and its fsyncs).
func TestQuietCheckWritesNothing(t *testing.T) {
	r, _ := newRun(t, "Fix the tests.\n")
	recordFail(t, r, "--- FAIL: TestOne\n")
	path := r.St.RunPath("r1", store.RunFile)
	before, _ := os.ReadFile(path)
	for i := 0; i < 2; i++ {
		act, err := Check(r.St, r, "r1", Settings{K: 2, MaxRewrites: 2})
		if err != nil || act.Do != DoContinue || len(act.Signals) > 0 {
			t.Fatalf("check %d: %+v %v", i, act, err)
		}
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Errorf("a quiet check rewrote run.json:\n%s\nwas:\n%s", after, before)
	}
}
