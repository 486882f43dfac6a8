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

// CleanKeys are the config keys that say which runs the clean at the end
// of a run deletes: keep_last=1 from the agent would delete the person's
// earlier runs with their records.
var CleanKeys = []string{"keep_last", "keep_days"}

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

// Kind is what the setting names: "command", "worktree path" (PathKeys)
// or "retention setting" (CleanKeys).
func (c Command) Kind() string {
	switch {
	case slices.Contains(PathKeys, c.Key):
		return "worktree path"
	case slices.Contains(CleanKeys, c.Key):
		return "retention setting"
	}
	return "command"
}

// Commands are the settings of the config file content data (named name)
// that loopkit would run, that say where it writes (PathKeys) or what it
// deletes (CleanKeys), in file order.
func Commands(name string, data []byte) ([]Command, error) {
	cfg := cli.Config{}
	if err := cli.ParseConfig(name, data, cfg); err != nil {
		return nil, err
	}
	var cs []Command
	for k, s := range cfg {
		if (slices.Contains(CommandKeys, k) || slices.Contains(PathKeys, k) || slices.Contains(CleanKeys, k)) && strings.TrimSpace(s.Value) != "" {
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

// records are the lines of the record of accepted configs: a hash, a
// space and the path it was accepted at.
func records() ([]string, error) {
	rec, err := recordData()
	return strings.Split(string(rec), "\n"), err
}

// recordData is the record's content, nil when there is none yet.
func recordData() ([]byte, error) {
	f, err := file()
	if err != nil {
		return nil, err
	}
	rec, err := safefile.ReadFile(f, 16<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return rec, err
}

// recordPath is path as the record names it.
func recordPath(path string) string {
	abs, _ := filepath.Abs(path)
	return strings.ReplaceAll(abs, "\n", " ")
}

// Accepted reports whether the content data was accepted.
func Accepted(data []byte) (bool, error) {
	ok, _, err := Check("", data)
	return ok, err
}

// Check reads the record once: whether the content data was accepted,
// and whether some content of the config file at path was. A file the
// person accepted stays theirs, so a change that leaves it naming no
// command (the agent deleting a final verification or a reviewer) still
// waits for them.
func Check(path string, data []byte) (accepted, seen bool, err error) {
	lines, err := records()
	h, p := Hash(data), recordPath(path)
	for _, line := range lines {
		hash, at, _ := strings.Cut(line, " ")
		accepted = accepted || hash == h
		seen = seen || path != "" && at == p
	}
	return accepted, seen, err
}

// AcceptData records that the person accepted the content data of the
// config file at path (the path kept beside the hash: Check).
func AcceptData(path string, data []byte) error {
	rec, err := recordData()
	if err != nil {
		return err
	}
	line := Hash(data) + " " + recordPath(path)
	if slices.Contains(strings.Split(string(rec), "\n"), line) {
		return nil
	}
	if len(rec) > 0 && rec[len(rec)-1] != '\n' {
		// a torn last line (a power cut mid-append, zeros in its place)
		// stays apart from this one, which would not match otherwise
		line = "\n" + line
	}
	f, err := file()
	if err != nil {
		return err
	}
	w, err := safefile.OpenFile(f, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	// one write of the whole line: concurrent accepts never interleave
	_, err = w.WriteString(line + "\n")
	if err == nil {
		err = w.Sync()
	}
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
