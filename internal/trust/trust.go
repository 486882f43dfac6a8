// Package trust keeps the config files whose commands the person accepted.
// A config file (the store's .loop/config, LOOP_CONFIG) can name commands
// loopkit runs: the validation, final verifications, a reviewer, a naming
// agent, hooks. The agent can write .loop/config as easily as the person,
// and file ownership proves nothing (it runs as the same user), so such a
// file is obeyed only when the hash of its content was accepted, recorded
// outside the workspace in $XDG_STATE_HOME/loopkit/trusted.
package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/safefile"
	"github.com/loopkit/loopkit/internal/userdir"
)

// CommandKeys are the config keys whose values loopkit runs.
var CommandKeys = []string{"verify_cmds", "final_verify_cmds", "reviewer", "run_naming_model", "on_event"}

// PathKeys are the config keys that say where loopkit writes the
// repository's files outside the workspace: a worktree checked out into
// a shell's conf.d or an autostart folder runs there as the person.
var PathKeys = []string{"worktree_path_template"}

// Hash names a config file's content.
func Hash(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Command is one setting of a config file that names a command (or a
// path, PathKeys).
type Command struct {
	Key, Value string
	Line       int
}

// IsPath reports a setting of PathKeys.
func (c Command) IsPath() bool { return slices.Contains(PathKeys, c.Key) }

// Commands are the settings of the config file content data (named name)
// that loopkit would run, or that say where it writes (PathKeys), in
// file order.
func Commands(name string, data []byte) ([]Command, error) {
	cfg := cli.Config{}
	if err := cli.ParseConfig(name, data, cfg); err != nil {
		return nil, err
	}
	var cs []Command
	for k, s := range cfg {
		if (slices.Contains(CommandKeys, k) || slices.Contains(PathKeys, k)) && strings.TrimSpace(s.Value) != "" {
			cs = append(cs, Command{Key: k, Value: s.Value, Line: s.Line})
		}
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i].Line < cs[j].Line })
	return cs, nil
}

// file is the record of accepted hashes.
func file() (string, error) {
	d, err := userdir.State()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "trusted"), nil
}

// Accepted reports whether the content data was accepted.
func Accepted(data []byte) (bool, error) {
	f, err := file()
	if err != nil {
		return false, err
	}
	rec, err := safefile.ReadFile(f, 16<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	h := Hash(data)
	for _, line := range strings.Split(string(rec), "\n") {
		if first, _, _ := strings.Cut(line, " "); first == h {
			return true, nil
		}
	}
	return false, nil
}

// AcceptData records that the person accepted the content data of the
// config file at path (kept beside the hash for them to read).
func AcceptData(path string, data []byte) error {
	if ok, err := Accepted(data); err != nil || ok {
		return err
	}
	f, err := file()
	if err != nil {
		return err
	}
	abs, _ := filepath.Abs(path)
	w, err := safefile.OpenFile(f, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	// one write of the whole line: concurrent accepts never interleave
	_, err = w.WriteString(Hash(data) + " " + strings.ReplaceAll(abs, "\n", " ") + "\n")
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	return err
}

// Accept records the config file at path as it is now; `loop init`
// calls it for the config it writes.
func Accept(path string) error {
	data, err := Read(path)
	if err != nil {
		return err
	}
	return AcceptData(path, data)
}

// Read reads a config file the agent could have replaced: a regular file,
// no link, no FIFO, at most cli.MaxConfigBytes, the cap of every reader of
// config files.
func Read(path string) ([]byte, error) {
	data, err := safefile.ReadFile(path, cli.MaxConfigBytes)
	if errors.Is(err, syscall.ENOENT) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return data, nil
}
