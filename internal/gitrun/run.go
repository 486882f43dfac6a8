package gitrun

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/loopkit/loopkit/internal/userdir"
)

// Remember keeps, outside the workspace (the state directory), the hash
// of the config of the repository around dir as the person started the
// run at runDir, and the digest of the commands it names (Commands): the
// run's git calls honour that config, and a later one naming the same
// commands, and no other.
func Remember(runDir, dir string) error {
	hash, err := ConfigHash(dir)
	if err != nil || hash == "" {
		return err
	}
	if commands, err := Commands(dir); err == nil && commands != "" {
		hash += "\n" + commands // unread: the hash alone, as before
	}
	path, err := statePath(runDir)
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	os.Remove(tmp)
	err = os.WriteFile(tmp, []byte(hash+"\n"), 0o600)
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp) // a full disk's half: no later write names it
	}
	return err
}

// Forget removes the hash kept for the run at runDir, once the run is
// deleted: nothing is left of it in the state directory. No hash is fine.
func Forget(runDir string) error {
	state, err := userdir.State()
	if err != nil {
		return err
	}
	name, err := stateName(runDir)
	if err != nil {
		return err
	}
	path := filepath.Join(state, "git-config", name)
	// a holder killed inside Remember left its temporary file, which no
	// later Remember of this run (made once) removes
	if err := os.Remove(path + ".tmp"); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	err = os.Remove(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// TrustRun guards this process's git calls with the config hash kept for
// the run at runDir (see Trust); without one nothing of a repository's
// own config is run.
func TrustRun(runDir string) {
	hash, commands := "", ""
	if path, err := statePath(runDir); err == nil {
		if data, err := readSmall(path); err == nil {
			// a run remembered by an older loopkit kept the hash alone
			hash, commands, _ = strings.Cut(strings.TrimSpace(string(data)), "\n")
		}
	}
	TrustCommands(hash, commands)
}

// statePath is the file keeping the hash of the run at runDir: named by
// the run directory's path, which the workspace cannot change.
func statePath(runDir string) (string, error) {
	dir, err := userdir.StateSub("git-config")
	if err != nil {
		return "", err
	}
	name, err := stateName(runDir)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, name), nil
}

// stateName names the hash file of the run at runDir: its path, hashed.
func stateName(runDir string) (string, error) {
	abs, err := filepath.Abs(runDir)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(abs))
	return hex.EncodeToString(sum[:16]), nil
}
