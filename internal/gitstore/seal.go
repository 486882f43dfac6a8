package gitstore

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/loopkit/loopkit/internal/safefile"
	"github.com/loopkit/loopkit/internal/userdir"
	"github.com/loopkit/loopkit/internal/wfile"
)

// An index of the store's (a run's git/index, a step base's in the spool)
// is a stat cache git trusts: a file whose stat data it holds, or that it
// marks assume-unchanged or skip-worktree, is not read again. The store
// sits in the workspace, in the agent's reach: an index it wrote would
// hide its changes from the snapshots. So each index loopkit writes is
// sealed, <index>.mac holding an HMAC of its size and trailing checksum
// under a key kept outside the workspace (the state directory), and one
// whose seal does not hold is never used.

// macSuffix names an index's seal beside it.
const macSuffix = ".mac"

var sealKey = sync.OnceValues(func() ([]byte, error) {
	state, err := userdir.State()
	if err != nil {
		return nil, err
	}
	path := filepath.Join(state, "index.key")
	if key, err := safefile.ReadFile(path, 64); err == nil && len(key) == 32 {
		return key, nil
	}
	key := make([]byte, 32)
	rand.Read(key)
	// made whole under another name, then linked: a concurrent maker's key
	// wins and is read back
	tmp := path + "." + strconv.Itoa(os.Getpid())
	os.Remove(tmp)
	if err := os.WriteFile(tmp, key, 0o600); err != nil {
		return nil, err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, path); errors.Is(err, fs.ErrExist) {
		if key, err = safefile.ReadFile(path, 64); err == nil && len(key) != 32 {
			err = errors.New(path + ": not a key of loopkit's; remove it")
		}
		return key, err
	} else if err != nil {
		return nil, err
	}
	return key, nil
})

// indexMAC is the HMAC of the index's size and its last 32 bytes (its
// checksum, whatever the hash), read without following a link. The
// checksum must be the hash of the rest: git reads an index without
// checking it (only fsck does), so an index rewritten in place, same
// size, same tail, would match a seal of a checksum nobody checks; and an
// index without one (index.skipHash, as feature.manyFiles sets it) is
// never sealed (errNoChecksum).
func indexMAC(index string) ([]byte, error) {
	key, err := sealKey()
	if err != nil {
		return nil, err
	}
	data, err := safefile.ReadFile(index, maxIndex)
	if err != nil {
		return nil, err
	}
	if indexHashLen(data) == 0 {
		return nil, errNoChecksum
	}
	m := hmac.New(sha256.New, key)
	binary.Write(m, binary.BigEndian, int64(len(data)))
	m.Write(data[len(data)-min(len(data), 32):])
	return m.Sum(nil), nil
}

// errNoChecksum is an index whose trailing checksum is not its hash.
var errNoChecksum = errors.New("index without a valid checksum")

// seal writes the index's seal (a new file renamed over the name), once
// smudgeIndex has marked the entries whose stat data is not trusted yet. No
// key (no state directory) leaves the index unsealed: the next snapshot
// reads every file again, nothing worse.
func seal(index string) error {
	if err := smudgeIndex(index); err != nil {
		return err
	}
	mac, err := indexMAC(index)
	if errors.Is(err, errNoChecksum) {
		// not sealable: the next snapshot reads every file; no seal of an
		// earlier index may stay beside it
		if err := os.Remove(index + macSuffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	if err != nil {
		if _, kerr := sealKey(); kerr != nil {
			return nil
		}
		return err
	}
	if writeSeal(index+macSuffix, mac) == nil {
		return nil
	}
	tmp := index + macSuffix + ".tmp"
	os.Remove(tmp)
	err = wfile.WriteNew(tmp, mac, 0o600)
	if err == nil {
		err = os.Rename(tmp, index+macSuffix)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// writeSeal rewrites an index's seal in place (through no link, into no
// file with another name: safefile), where a new file renamed over it
// created and freed an inode at each record, which on ext4 without a
// journal makes every later file created scan past it for 30 s. A seal
// cut short (a kill, a power cut) is no seal of any index, as the stale
// one it replaces already was: the next snapshot reads every file, as
// without a seal. On any error the caller writes a new file instead.
func writeSeal(path string, mac []byte) error {
	f, err := safefile.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(mac)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// sealed tells whether the index is one loopkit wrote and sealed.
func sealed(index string) bool {
	want, err := safefile.ReadFile(index+macSuffix, 64)
	if err != nil {
		return false
	}
	got, err := indexMAC(index)
	return err == nil && hmac.Equal(got, want)
}

// prepareIndex leaves at index the stat cache a snapshot starts from: its
// own when sealed, else a copy of seed when seed is the user's index
// (user) or a sealed one of the store's, else none (every file is read).
func prepareIndex(seed, index, user string) error {
	if _, err := os.Lstat(index); err == nil && !sealed(index) {
		if err := os.Remove(index); err != nil {
			return err
		}
	}
	if seed != "" && seed != user && !sealed(seed) {
		seed = ""
	}
	return seedIndex(seed, index)
}
