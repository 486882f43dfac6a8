package loopdrive

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/slots"
	"github.com/loopkit/loopkit/internal/store"
)

// slot waits for one of max flocked files slot.1..max and keeps it; the
// kernel frees it when this holder (and so the driver) is gone.
func (h *holder) slot(max int) error {
	if max <= 0 {
		return cli.Usagef("--max-concurrency must be a positive whole number, got %d", max)
	}
	dir := slots.Dir()
	if err := slots.Prepare(dir, max); err != nil {
		return cli.Failf("concurrency slots: %v", err)
	}
	waited := false
	for {
		for i := 1; i <= max; i++ {
			l, err := store.LockFile(filepath.Join(dir, fmt.Sprintf("slot.%d", i)), true, false)
			if err == nil {
				h.locks = append(h.locks, l)
				if waited {
					h.env.Log.Info("got a slot")
				}
				return nil
			}
			if !errors.Is(err, store.ErrLocked) {
				return cli.Failf("concurrency slot: %v", err)
			}
		}
		if !waited {
			h.env.Log.Info(fmt.Sprintf("waiting for a free slot: %d loops already running on this machine (max_concurrency=%d)", max, max))
			waited = true
		}
		if os.Getppid() != h.parent {
			return cli.Failf("the driver is gone")
		}
		time.Sleep(time.Second)
	}
}
