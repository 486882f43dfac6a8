package loopdrive

import (
	"bufio"
	"bytes"
	"io"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/charmbracelet/log"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/lazylog"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runstate"
	"github.com/loopkit/loopkit/internal/store"
)

// opens counts the opens of the files in dir (inotify IN_OPEN: every open,
// whoever makes it, with no seam in the code under test).
func opens(t *testing.T, dir string) func() map[string]int {
	t.Helper()
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		t.Skipf("inotify: %v", err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	// closes too: inotify merges an event equal to the last one queued, and
	// a close between two opens keeps them apart
	if _, err := syscall.InotifyAddWatch(fd, dir, syscall.IN_OPEN|syscall.IN_CLOSE); err != nil {
		t.Fatal(err)
	}
	return func() map[string]int {
		got := map[string]int{}
		buf := make([]byte, 64<<10)
		for {
			n, err := syscall.Read(fd, buf)
			if n <= 0 || err != nil {
				return got // EAGAIN: the events are queued as the opens happen
			}
			for off := 0; off+syscall.SizeofInotifyEvent <= n; {
				ev := (*syscall.InotifyEvent)(unsafe.Pointer(&buf[off]))
				name := buf[off+syscall.SizeofInotifyEvent : off+syscall.SizeofInotifyEvent+int(ev.Len)]
				if ev.Mask&syscall.IN_OPEN != 0 {
					got[string(bytes.TrimRight(name, "\x00"))]++
				}
				off += syscall.SizeofInotifyEvent + int(ev.Len)
			}
		}
	}
}

// The driver's per-iteration call (loop-drive record) reads the run's log
// and run.json a bounded number of times: the watchdog's quiet check reads
// no run.json, takes no lock and reuses the lines the decision decoded,
// and the cost hooks and the decision reuse the run just written. Before,
// this record opened iterations.jsonl 11 times and run.json 4 times (7
// and 1 now: the writer's tail repairs, its append, the progress block's
// and the decision's reads).
func TestRecordReadsRunFilesFewTimes(t *testing.T) {
	st := runningRun(t, 5)
	quiet := lazylog.New(func() *log.Logger { return log.New(io.Discard) })
	door := runstate.Plain(st, quiet)
	line := `{"type":"validation","command":"false","exit_code":1,"stdout":"no"}` + "\n"
	for n := 1; n <= 1; n++ {
		in, err := record.DecodeInput([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := door.RecordIteration("r", in, n); err != nil {
			t.Fatal(err)
		}
	}
	count := opens(t, st.RunDir("r"))
	var out bytes.Buffer
	env := &cli.Env{Name: "loop-drive", Stdin: strings.NewReader(line), Stdout: bufio.NewWriter(&out), Stderr: io.Discard, Log: quiet}
	if err := recordNext(env, door, &Options{Run: "r", Iteration: 2}); err != nil {
		t.Fatal(err)
	}
	env.Stdout.Flush()
	if !strings.Contains(out.String(), "action=iterate") {
		t.Fatalf("next action:\n%s", out.String())
	}
	got := count()
	t.Logf("opens in one record: %v", got)
	if n := got[store.IterationsFile]; n > 7 {
		t.Errorf("iterations.jsonl opened %d times in one record, want at most 7 (%v)", n, got)
	}
	if n := got[store.RunFile]; n > 1 {
		t.Errorf("run.json opened %d times in one record, want at most 1 (%v)", n, got)
	}
}
