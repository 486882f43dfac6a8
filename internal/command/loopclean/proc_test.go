package loopclean_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	lkcommand "github.com/loopkit/loopkit/internal/command"
	"github.com/loopkit/loopkit/internal/command/loopclean"
	"github.com/loopkit/loopkit/internal/command/looprecord"
	"github.com/loopkit/loopkit/internal/retention"
	"github.com/loopkit/loopkit/internal/store"
)

// The test binary doubles as the real commands (and a lock holder), so the
// tests below run, kill and race real processes.
func TestMain(m *testing.M) {
	switch os.Getenv("LOOPKIT_TEST_EXEC") {
	case "loop-clean":
		os.Exit(lkcommand.Main("loop-clean", loopclean.Main))
	case "loop-record":
		os.Exit(lkcommand.Main("loop-record", looprecord.Main))
	case "hold-live":
		holdLive(os.Args[1], os.Args[2])
	}
	os.Exit(m.Run())
}

// holdLive takes a run's live lock, says so on stdout, and waits to be killed.
func holdLive(root, id string) {
	st := &store.Store{Root: root}
	if _, err := st.LockLive(id); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("locked")
	// not select{}: a static binary (no cgo) has the runtime's deadlock
	// check, which would end this process and free the lock
	for {
		time.Sleep(time.Hour)
	}
}

// command is the test binary run as prog on store st.
func command(st *store.Store, prog string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "LOOPKIT_TEST_EXEC="+prog, "LOOP_STORE="+st.Root, "NO_COLOR=1")
	return cmd
}

// runClean runs loop-clean to the end and returns its decisions by run id.
func runClean(t *testing.T, st *store.Store, args ...string) map[string]retention.Decision {
	t.Helper()
	var stderr bytes.Buffer
	cmd := command(st, "loop-clean", args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("loop-clean %v: %v\n%s", args, err, stderr.String())
	}
	got := map[string]retention.Decision{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line == "" {
			continue
		}
		var d retention.Decision
		if err := json.Unmarshal([]byte(line), &d); err != nil {
			t.Fatalf("decision %q: %v", line, err)
		}
		got[d.RunID] = d
	}
	return got
}

// newRun creates a run updated ageDays ago through the store, as a real one.
func newRun(t *testing.T, st *store.Store, id string, ageDays float64) {
	t.Helper()
	r := store.NewRun(id, id, time.Now().Add(-time.Duration(ageDays*24*float64(time.Hour))).UnixMilli())
	r.Status = "completed"
	if err := st.CreateRun(r); err != nil {
		t.Fatal(err)
	}
}

func newStore(t *testing.T) *store.Store {
	st := &store.Store{Root: filepath.Join(t.TempDir(), ".loop")}
	if err := st.Init(); err != nil {
		t.Fatal(err)
	}
	return st
}

// A live run older than 14 days survives while another process holds its
// lock; once that process is killed with SIGKILL, the next clean deletes it.
func TestLiveRunSurvivesUntilHolderKilled(t *testing.T) {
	st := newStore(t)
	newRun(t, st, "old-live", 30)
	newRun(t, st, "old", 30)
	holder := command(st, "hold-live", st.Root, "old-live")
	holder.Args = []string{os.Args[0], st.Root, "old-live"}
	out, err := holder.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer holder.Process.Kill()
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "locked\n" {
		t.Fatalf("holder said %q", line)
	}

	got := runClean(t, st)
	if d := got["old-live"]; d.Action != retention.Exempt || d.Reason != retention.ReasonActive {
		t.Errorf("live run: %+v", d)
	}
	if got["old"].Action != retention.Delete || st.RunExists("old") {
		t.Errorf("old run: %+v", got["old"])
	}
	if !st.RunExists("old-live") {
		t.Fatal("live run deleted")
	}

	holder.Process.Signal(os.Kill)
	holder.Wait()
	got = runClean(t, st)
	if d := got["old-live"]; d.Action != retention.Delete || d.Reason != retention.ReasonOlder {
		t.Errorf("after SIGKILL: %+v", d)
	}
	if st.RunExists("old-live") {
		t.Error("run still there after its holder died")
	}
}
