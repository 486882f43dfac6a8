package loopdrive

import (
	"errors"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/loopkit/loopkit/internal/proc"
	"github.com/loopkit/loopkit/internal/store"
)

// errSignalled: a signal came while the run was made or taken; the driver
// heard the run's id, then the signal (a signal=NAME record), and marks
// the run.
var errSignalled = errors.New("signalled while taking the run")

// catchSignals starts the stretch, from just before the run is made (or
// taken, on resume) until announce, in which the signals a terminal sends
// the whole group are caught rather than fatal: killed in between, this
// process left a run running whose id the driver never heard, so the
// driver could not mark it canceled and it showed as interrupted, taken
// up again by `loop resume --interrupted`. One ignored at start (nohup)
// stays ignored.
func (h *holder) catchSignals() {
	h.caught = make(chan os.Signal, 1)
	proc.NotifyStop(h.caught)
}

// endCatch ends that stretch (a signal is fatal again) and returns the
// signal that came in it, nil when none did.
func (h *holder) endCatch() os.Signal {
	if h.caught == nil {
		return nil
	}
	signal.Stop(h.caught)
	select {
	case s := <-h.caught:
		return s
	default:
		return nil
	}
}

// announce tells the driver the run's id, and its store's, the moment the
// run is there; errSignalled when a signal came since catchSignals.
func (h *holder) announce(id string) error {
	if sid, err := store.ID(h.st.Root); err == nil {
		h.emit("storeid", sid) // the driver's children refuse another folder there
	}
	h.emit("run", id)
	if s, ok := h.endCatch().(syscall.Signal); ok {
		h.emit("signal", strings.TrimPrefix(unix.SignalName(s), "SIG"))
		return errSignalled
	}
	return nil
}
