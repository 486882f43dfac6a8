package gitrun

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os/exec"

	"github.com/loopkit/loopkit/internal/lookpath"
)

// Commands digests what the repository's own config around dir has git
// run or read in its place (the keys overrides sets back: the commands,
// the excludes and attributes files, a moved work tree), with their values
// as git reads them (includes followed). The person's own git beside a run
// rewrites .git/config without touching any of them (git remote add,
// git push -u, git maintenance register): a config whose digest is the
// run's still runs its filters, so a git-lfs filter is not dropped halfway
// through a run. "" outside git.
func Commands(dir string) (string, error) {
	if commonDir(dir) == "" {
		return "", nil
	}
	cmd := exec.CommandContext(aborted(), lookpath.Command("git"), "-C", dir, "config", "--list", "--show-scope", "-z", "--includes")
	cmd.Env = append(environ(), policyEnv...)
	out, err := cmd.Output()
	if err != nil {
		return "", Error([]string{"config", "--list"}, err, nil)
	}
	h := sha256.New()
	fields := bytes.Split(out, []byte{0})
	for i := 0; i+1 < len(fields); i += 2 {
		scope := string(fields[i])
		key, _, _ := bytes.Cut(fields[i+1], []byte("\n"))
		k := string(key)
		if scope != "local" && scope != "worktree" {
			continue // the person's global and system config run as they are
		}
		if executable(k) || hides(k) || k == "core.worktree" || k == "core.bare" {
			h.Write(fields[i])
			h.Write([]byte{0})
			h.Write(fields[i+1])
			h.Write([]byte{0})
		}
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// sameCommands tells whether the config around dir, hashing to hash
// (not the run's), still names the commands the run's did; trust is held.
func sameCommands(dir, hash string) bool {
	if trust.commands == "" {
		return false
	}
	got, ok := trust.digests[hash]
	if !ok {
		got, _ = Commands(dir) // unreadable: "", not the same
		if trust.digests == nil {
			trust.digests = map[string]string{}
		}
		trust.digests[hash] = got
	}
	return got == trust.commands
}
