// Package queue hands out the machine's run slots: at most max_concurrency
// runs at once, at most max_runs_per_workspace of them in one workspace,
// and waiting drivers served in queue_policy order (fifo or newest_first).
// Slots and tickets are flocked files, so a driver that dies frees its
// slot and leaves the queue without anyone cleaning up.
package queue

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/loopkit/loopkit/internal/safefile"
	"github.com/loopkit/loopkit/internal/store"
)

// Policies.
const (
	FIFO        = "fifo"
	NewestFirst = "newest_first"
)

// Config is one driver's request for a slot.
type Config struct {
	Dir             string // where slots and tickets live (per user)
	MaxConcurrency  int    // slots on the machine
	MaxPerWorkspace int    // slots per workspace; 0: no limit
	Workspace       string
	Policy          string
	RunID           string
	// Enqueued orders the queue (the run's creation time, Unix ms).
	Enqueued int64
	Interval time.Duration
	// Waiting is told, when the driver starts waiting and whenever the
	// answer changes, which runs it waits for and why.
	Waiting func(runs []string, why string)
}

// Held is a driver's slot; Release frees it (so does the driver's death).
type Held struct{ locks []*store.Lock }

// Release frees the slot.
func (h *Held) Release() {
	for _, l := range h.locks {
		l.Unlock()
	}
	h.locks = nil
}

type ticket struct {
	RunID           string `json:"run_id"`
	Workspace       string `json:"workspace"`
	MaxPerWorkspace int    `json:"max_per_workspace"`
	Enqueued        int64  `json:"enqueued"`
	path            string
}

// Check says what is wrong with the request's settings: Acquire's other
// errors are the runtime directory's (a full or read-only disk).
func (c Config) Check() error {
	switch {
	case c.MaxConcurrency <= 0:
		return fmt.Errorf("max_concurrency must be 1 or more, got %d", c.MaxConcurrency)
	case c.MaxPerWorkspace < 0:
		return fmt.Errorf("max_runs_per_workspace must be 0 (no limit) or more, got %d", c.MaxPerWorkspace)
	case c.Policy != "" && c.Policy != FIFO && c.Policy != NewestFirst:
		return fmt.Errorf("queue_policy must be fifo or newest_first, got %q", c.Policy)
	}
	return nil
}

// Acquire waits for a slot: its turn in the queue, a free workspace slot
// (when limited) and a free machine slot.
func Acquire(ctx context.Context, c Config) (*Held, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	if c.Policy == "" {
		c.Policy = FIFO
	}
	if c.Interval <= 0 {
		c.Interval = 500 * time.Millisecond
	}
	qdir := filepath.Join(c.Dir, "queue")
	if err := os.MkdirAll(qdir, 0o700); err != nil {
		return nil, fmt.Errorf("queue: %v", err)
	}
	me := ticket{RunID: c.RunID, Workspace: c.Workspace, MaxPerWorkspace: c.MaxPerWorkspace, Enqueued: c.Enqueued,
		path: filepath.Join(qdir, fmt.Sprintf("%013d-%s.ticket", c.Enqueued, c.RunID))}
	tl, err := store.LockFile(me.path, true, true)
	if err != nil {
		return nil, fmt.Errorf("queue ticket: %v", err)
	}
	data, _ := json.Marshal(me)
	if err := os.WriteFile(me.path, data, 0o600); err != nil {
		os.Remove(me.path) // a full disk's empty ticket
		tl.Unlock()
		return nil, fmt.Errorf("queue ticket: %v", err)
	}
	defer func() {
		os.Remove(me.path)
		tl.Unlock()
	}()
	said := ""
	for {
		ahead := c.ahead(qdir, me)
		if len(ahead) == 0 {
			h, holders, why, err := c.take()
			if err != nil || h != nil {
				return h, err
			}
			if msg := strings.Join(holders, " ") + why; msg != said && c.Waiting != nil {
				c.Waiting(holders, why)
				said = msg
			}
		} else if msg := strings.Join(ahead, " ") + "queue"; msg != said && c.Waiting != nil {
			c.Waiting(ahead, fmt.Sprintf("queued behind them (queue_policy=%s)", c.Policy))
			said = msg
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(c.Interval):
		}
	}
}

// ahead lists the live tickets served before me that could take a slot now.
func (c Config) ahead(qdir string, me ticket) []string {
	names, _ := filepath.Glob(filepath.Join(qdir, "*.ticket"))
	var ts []ticket
	for _, n := range names {
		if n == me.path {
			continue
		}
		if l, err := store.LockFile(n, true, false); err == nil { // its driver is gone
			os.Remove(n)
			l.Unlock()
			continue
		}
		data, err := safefile.ReadFile(n, 1<<20)
		var t ticket
		if err != nil || json.Unmarshal(data, &t) != nil {
			continue // being written: seen next time
		}
		t.path = n
		ts = append(ts, t)
	}
	var out []string
	for _, t := range ts {
		first := t.Enqueued < me.Enqueued || t.Enqueued == me.Enqueued && t.RunID < me.RunID
		if c.Policy == NewestFirst {
			first = !first
		}
		if first && c.eligible(t) {
			out = append(out, t.RunID)
		}
	}
	slices.Sort(out)
	return out
}

// eligible reports whether a waiting ticket's workspace has a free slot.
func (c Config) eligible(t ticket) bool {
	if t.MaxPerWorkspace == 0 {
		return true
	}
	for i := 1; i <= t.MaxPerWorkspace; i++ {
		if l, err := store.LockFile(c.wsSlot(t.Workspace, i), true, false); err == nil {
			l.Unlock()
			return true
		}
	}
	return false
}

// take tries a workspace slot, then a machine slot; when it cannot, it
// says which runs hold what it waits for.
func (c Config) take() (*Held, []string, string, error) {
	h := &Held{}
	if c.MaxPerWorkspace > 0 {
		l, holders, err := c.first(func(i int) string { return c.wsSlot(c.Workspace, i) }, c.MaxPerWorkspace)
		if err != nil || l == nil {
			return nil, holders, fmt.Sprintf("%d of this workspace's runs already running (max_runs_per_workspace=%d)", c.MaxPerWorkspace, c.MaxPerWorkspace), err
		}
		h.locks = append(h.locks, l)
	}
	l, holders, err := c.first(func(i int) string { return filepath.Join(c.Dir, fmt.Sprintf("slot.%d", i)) }, c.MaxConcurrency)
	if err != nil || l == nil {
		h.Release()
		loops := fmt.Sprintf("%d loops", c.MaxConcurrency)
		if c.MaxConcurrency == 1 {
			loops = "1 loop"
		}
		return nil, holders, fmt.Sprintf("%s already running on this machine (max_concurrency=%d)", loops, c.MaxConcurrency), err
	}
	h.locks = append(h.locks, l)
	return h, nil, "", nil
}

// first locks the first free slot of n and writes the run's id into it;
// when none is free it returns the ids their holders wrote.
func (c Config) first(path func(int) string, n int) (*store.Lock, []string, error) {
	var holders []string
	for i := 1; i <= n; i++ {
		p := path(i)
		l, err := store.LockFile(p, true, false)
		if errors.Is(err, store.ErrLocked) {
			if data, err := safefile.ReadFile(p, 1<<10); err == nil && len(data) > 0 {
				holders = append(holders, strings.TrimSpace(string(data)))
			}
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("slot: %v", err)
		}
		// Who holds it, for the drivers waiting: written through a new
		// descriptor (the lock's stays as it is).
		if f, err := os.OpenFile(p, os.O_WRONLY|os.O_TRUNC|syscall.O_NOFOLLOW, 0o600); err == nil {
			f.WriteString(c.RunID + "\n")
			f.Close()
		}
		return l, nil, nil
	}
	slices.Sort(holders)
	return nil, holders, nil
}

func (c Config) wsSlot(workspace string, i int) string {
	sum := sha256.Sum256([]byte(workspace))
	return filepath.Join(c.Dir, fmt.Sprintf("ws-%s.%d", hex.EncodeToString(sum[:6]), i))
}
