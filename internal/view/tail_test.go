package view

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/log"

	"github.com/loopkit/loopkit/internal/recorder"
	"github.com/loopkit/loopkit/internal/store"
)

// tailCase is an ended run with one spool entry of its step, whose stdout
// the test plants.
func tailCase(t *testing.T) (*store.Store, string) {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), ".loop"))
	if err != nil {
		t.Fatal(err)
	}
	r := &recorder.Recorder{St: st, Log: log.New(io.Discard)}
	if err := r.EnsureRun("r", "r"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.SetStatus("r", "completed", ""); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(st.SpoolDir(), 0o700)
	base := filepath.Join(st.SpoolDir(), "1-2-ab.step")
	meta, _ := json.Marshal(store.SpoolMeta{Command: "agent", RunID: "r"})
	os.WriteFile(base+".json", meta, 0o600)
	return st, base + ".stdout"
}

// runTail runs tail once over the ended run, failing after 20 s (a FIFO
// once blocked it forever: the FIFO is then opened to release it).
func runTail(t *testing.T, tl *Tail, fifo string) {
	t.Helper()
	tl.Flush = func() error { return nil }
	tl.Interval = time.Millisecond
	done := make(chan error, 1)
	go func() { done <- tl.Run(context.Background()) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		<-done
		t.Fatal("tail still waiting on a FIFO after 20 s")
	}
}

func TestTailPlantedFiles(t *testing.T) {
	st, stdout := tailCase(t)
	if err := syscall.Mkfifo(stdout, 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	runTail(t, &Tail{St: st, RunID: "r", Out: &out, Err: &out}, stdout)

	st, stdout = tailCase(t)
	secret := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secret, []byte("SECRET\n"), 0o600)
	os.Symlink(secret, stdout)
	out.Reset()
	runTail(t, &Tail{St: st, RunID: "r", Out: &out, Err: &out}, stdout)
	if strings.Contains(out.String(), "SECRET") {
		t.Errorf("tail read through a planted link: %q", out.String())
	}
}

// --json holds at most TailLineMax of a line: a longer one is sent cut,
// the rest skipped, and the next line comes whole.
func TestTailJSONLongLine(t *testing.T) {
	st, stdout := tailCase(t)
	long := bytes.Repeat([]byte("x"), 3*TailLineMax+5)
	os.WriteFile(stdout, append(append(long, "\n{\"type\":\"ok\"}\n"...), "tail\n"...), 0o600)
	var evs []TailEvent
	tl := &Tail{St: st, RunID: "r", Out: io.Discard, Err: io.Discard, Event: func(ev TailEvent) error {
		evs = append(evs, ev)
		return nil
	}}
	runTail(t, tl, stdout)
	if len(evs) != 3 || !evs[0].Cut || evs[0].Text == nil || len(*evs[0].Text) != TailLineMax ||
		string(evs[1].Event) != `{"type":"ok"}` || evs[2].Text == nil || *evs[2].Text != "tail" {
		t.Fatalf("%d events: %+v", len(evs), evs)
	}
}

// A step that ends and the next that starts between two polls: what the
// ended step printed last comes before the next one's header, not under
// it (the live view showed step 1's result line below step 2's header).
func TestTailOrderAcrossSteps(t *testing.T) {
	st, stdout := tailCase(t)
	os.WriteFile(stdout, []byte("a1\n"), 0o600)
	var got []string
	tl := &Tail{St: st, RunID: "r", Out: io.Discard, Err: io.Discard,
		Header: func(source, command string) error {
			got = append(got, "== "+command)
			return nil
		},
		Event: func(ev TailEvent) error {
			if ev.Text != nil {
				got = append(got, *ev.Text)
			}
			return nil
		}}
	tl.entries = map[string]*tailEntry{}
	if err := tl.poll(nil); err != nil {
		t.Fatal(err)
	}
	// step 1 prints its last line and is recorded; step 2 starts
	f, _ := os.OpenFile(stdout, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("a2\n")
	f.Close()
	os.Remove(strings.TrimSuffix(stdout, ".stdout") + ".json")
	next := filepath.Join(st.SpoolDir(), "1-3-cd.step")
	meta, _ := json.Marshal(store.SpoolMeta{Command: "agent2", RunID: "r"})
	os.WriteFile(next+".json", meta, 0o600)
	os.WriteFile(next+".stdout", []byte("b1\n"), 0o600)
	if err := tl.poll(nil); err != nil {
		t.Fatal(err)
	}
	defer tl.closeAll()
	if want := "== agent|a1|a2|== agent2|b1"; strings.Join(got, "|") != want {
		t.Fatalf("tail order %q, want %q", strings.Join(got, "|"), want)
	}
}

// --json lines are UTF-8 with every C1 control and bidirectional override
// escaped, as the store's records are: the agent's own JSON line passed
// through with its raw U+009B (a CSI on the terminal showing it) and a
// byte that is not UTF-8, which a JSON reader in Python refuses.
func TestTailJSONLineEscaped(t *testing.T) {
	st, stdout := tailCase(t)
	os.WriteFile(stdout, []byte("{\"t\":\"a\xff\xc2\x9b2J\xe2\x80\xae\"}\ntext \xc2\x9b2J\xe2\x80\xae\xff\n"), 0o600)
	var out bytes.Buffer
	tl := &Tail{St: st, RunID: "r", Out: io.Discard, Err: io.Discard, Event: func(ev TailEvent) error {
		line, err := ev.Line()
		out.Write(line)
		return err
	}}
	runTail(t, tl, stdout)
	got := out.Bytes()
	if !utf8.Valid(got) || bytes.Contains(got, []byte("\u009b")) || bytes.Contains(got, []byte("\u202e")) {
		t.Fatalf("--json output not escaped: %q", got)
	}
	var ev struct {
		Event struct{ T string }
		Text  string
	}
	lines := bytes.Split(bytes.TrimSuffix(got, []byte("\n")), []byte("\n"))
	if len(lines) != 2 || json.Unmarshal(lines[0], &ev) != nil || ev.Event.T != "a\uFFFD\u009b2J\u202e" ||
		json.Unmarshal(lines[1], &ev) != nil || ev.Text != "text \u009b2J\u202e\uFFFD" {
		t.Fatalf("--json lines %q: values changed", lines)
	}
}
