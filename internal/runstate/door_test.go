package runstate

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/charmbracelet/log"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/testsupport/storetest"
)

// `loop pause` and `loop cancel` look at the run, then change it; its
// driver may end it in between. The door checks the status again under
// the run's lock: a run that has just completed is neither paused (it
// was then paused, and resumable, after RUN_COMPLETED) nor canceled.
func TestPauseAndCancelKeepAnEnd(t *testing.T) {
	for _, status := range []string{record.RunCompleted, record.RunFailed, record.RunStuck} {
		st := storetest.Driven(t, record.RunRunning)
		door := Plain(st, log.New(io.Discard)).NoClean()
		if _, err := door.SetStatus("r", status, ""); err != nil { // the driver ends the run
			t.Fatal(err)
		}
		_, err := door.Pause("r", "loop pause")
		if err == nil || err.Error() != "run r is not running ("+status+"): nothing to pause" {
			t.Errorf("pause of a %s run: %v", status, err)
		}
		_, err = door.Cancel("r", "loop cancel")
		if err == nil || err.Error() != "run r is already "+status+": nothing to cancel" {
			t.Errorf("cancel of a %s run: %v", status, err)
		}
		run, err := st.ReadRun("r")
		if err != nil {
			t.Fatal(err)
		}
		if run.Status != status {
			t.Fatalf("run.json says %s; want %s", run.Status, status)
		}
		events, _ := os.ReadFile(st.RunPath("r", store.EventsFile))
		report, _ := os.ReadFile(st.RunPath("r", store.ReportFile))
		for _, bad := range []string{"RUN_PAUSED", "RUN_CANCELED"} {
			if bytes.Contains(events, []byte(bad)) || bytes.Contains(report, []byte(bad)) {
				t.Errorf("%s run: %s recorded after its end", status, bad)
			}
		}
	}
}

// A paused run can be canceled; a running one paused, then canceled.
func TestPauseThenCancel(t *testing.T) {
	st := storetest.Driven(t, record.RunRunning)
	door := Plain(st, log.New(io.Discard)).NoClean()
	if _, err := door.Pause("r", "loop pause"); err != nil {
		t.Fatal(err)
	}
	if _, err := door.Pause("r", "loop pause"); err == nil || !strings.Contains(err.Error(), "(paused)") {
		t.Errorf("second pause: %v", err)
	}
	run, err := door.Cancel("r", "loop cancel")
	if err != nil || run.Status != record.RunCanceled {
		t.Fatalf("cancel of a paused run: %v %v", run, err)
	}
}

// A queued run that ended while its driver waited for a slot (marked
// canceled by loop-record status) is not started again: RUN_STARTED
// and running after RUN_CANCELED were a second end undone.
func TestStartKeepsAnEnd(t *testing.T) {
	st := storetest.Driven(t, record.RunRunning)
	door := Plain(st, log.New(io.Discard)).NoClean()
	if _, err := door.Queue("r", "waiting"); err != nil {
		t.Fatal(err)
	}
	if _, err := door.SetStatus("r", record.RunCanceled, "by hand"); err != nil {
		t.Fatal(err)
	}
	if _, err := door.Start("r", "w:1"); err == nil || err.Error() != "run r was canceled while it waited: not started" {
		t.Errorf("start of a canceled run: %v", err)
	}
	run, err := st.ReadRun("r")
	if err != nil || run.Status != record.RunCanceled {
		t.Fatalf("run.json: %v; want canceled", err)
	}
	if events, _ := os.ReadFile(st.RunPath("r", store.EventsFile)); bytes.Contains(events, []byte("RUN_STARTED")) {
		t.Error("RUN_STARTED recorded after the run ended")
	}
	if _, err := door.Start("r2", "w:1"); err == nil {
		t.Error("start of no run")
	}
}
