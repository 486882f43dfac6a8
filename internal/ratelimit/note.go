package ratelimit

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/loopkit/loopkit/internal/safefile"
	"github.com/loopkit/loopkit/internal/store"
)

// NoteFile is the store's shared rate-limit note, and NoteLock the lock its
// writers take (never renamed or deleted).
const (
	NoteFile = "ratelimit.json"
	NoteLock = "ratelimit.lock"
)

// NoteWaitMessage marks a RATE_LIMITED event of a loop that waited on
// another loop's note without calling its agent.
const NoteWaitMessage = "waiting on the store's rate-limit note"

// Entry is what the note says of one account.
type Entry struct {
	ResetsAt  int64  `json:"resets_at"` // Unix ms: no agent call of the account before this
	RunID     string `json:"run_id"`
	Evidence  string `json:"evidence,omitempty"`
	WrittenAt int64  `json:"written_at"`
}

// Note is ratelimit.json: accounts by key.
type Note struct {
	Accounts map[string]Entry `json:"accounts"`
}

// Account is the key loops share a wait under: the name given, else the
// agent program's base name (so two claude loops share one limit).
func Account(name, program string) string {
	if name != "" {
		return name
	}
	if program == "" {
		return "agent"
	}
	return filepath.Base(program)
}

// noteMax caps what is read of the note: a few hundred bytes an account.
const noteMax = 1 << 20

// readNote reads the note as every file in the agent's reach is read: a
// FIFO, a link, a device or a file past noteMax is a damaged note.
func readNote(path string) (*Note, error) {
	n := &Note{Accounts: map[string]Entry{}}
	data, err := safefile.ReadFile(path, noteMax)
	if errors.Is(err, os.ErrNotExist) {
		return n, nil
	}
	if err != nil {
		// replaced (renamed over) by the next Leave, never followed
		return n, nil
	}
	if err := json.Unmarshal(data, n); err != nil {
		// a note is advice: a damaged one is replaced, never a reason to stop
		return &Note{Accounts: map[string]Entry{}}, nil
	}
	if n.Accounts == nil {
		n.Accounts = map[string]Entry{}
	}
	return n, nil
}

// Leave records that account may not call its agent before e.ResetsAt. It
// only ever moves an account's time later, drops entries that have passed,
// and writes the note atomically (0600) under the store's note lock.
func Leave(root, account string, e Entry, now time.Time) error {
	return update(root, now, func(n *Note) bool {
		if old, ok := n.Accounts[account]; ok && old.ResetsAt >= e.ResetsAt {
			return false
		}
		n.Accounts[account] = e
		return true
	})
}

// update changes the note under its lock, after rebasing the entries
// written in our future on now (rebase) and dropping those that have
// passed; it writes when change or the rebase changed something.
func update(root string, now time.Time, change func(n *Note) bool) error {
	lock, err := store.LockFile(filepath.Join(root, NoteLock), true, true)
	if err != nil {
		return fmt.Errorf("rate-limit note: %w", err)
	}
	defer lock.Unlock()
	path := filepath.Join(root, NoteFile)
	n, err := readNote(path)
	if err != nil {
		return fmt.Errorf("rate-limit note: %w", err)
	}
	rebased := false
	for k, old := range n.Accounts {
		if e, ok := rebase(old, now); ok {
			n.Accounts[k], old, rebased = e, e, true
		}
		if old.ResetsAt <= now.UnixMilli() {
			delete(n.Accounts, k)
		}
	}
	if !change(n) && !rebased {
		return nil
	}
	data, err := json.MarshalIndent(n, "", "  ")
	if err != nil {
		return err
	}
	return store.WriteFileAtomic(path, append(data, '\n'), store.FileMode)
}

// rebase moves an entry written in our future (the clock has since been
// set back: a VM or a laptop hours ahead until NTP set it right) to now,
// keeping the wait it asked for: loops then wait that, not the hours the
// clock went back.
func rebase(e Entry, now time.Time) (Entry, bool) {
	ms := now.UnixMilli()
	if e.WrittenAt <= ms || e.ResetsAt <= e.WrittenAt {
		return e, false
	}
	e.ResetsAt, e.WrittenAt = ms+(e.ResetsAt-e.WrittenAt), ms
	return e, true
}

// Pending is the note's entry for account when its time is still ahead.
// An entry written in our future is rebased on now, once, in the note.
func Pending(root, account string, now time.Time) (Entry, bool) {
	n, err := readNote(filepath.Join(root, NoteFile))
	if err != nil {
		return Entry{}, false
	}
	e, ok := n.Accounts[account]
	if _, ahead := rebase(e, now); ok && ahead {
		// in the note, so that the next decision waits for the same time
		if update(root, now, func(*Note) bool { return false }) == nil {
			n, _ = readNote(filepath.Join(root, NoteFile))
			e, ok = n.Accounts[account]
		}
		e, _ = rebase(e, now) // a note it cannot write: for this decision
	}
	if !ok || e.ResetsAt <= now.UnixMilli() {
		return Entry{}, false
	}
	return e, true
}
