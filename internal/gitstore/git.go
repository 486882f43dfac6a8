// Package gitstore keeps a run's work trees in a git object database of
// its own under the store (runs/<id>/git): the user's repository is only
// read, as an alternate object directory, and never written — no object,
// ref or index. Each iteration's resulting tree is kept as a commit whose
// parent is the step's base, under refs/iterations/<N>.
package gitstore

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// bigFile is git's core.bigFileThreshold here: larger files are streamed
// into packs, never read whole into memory, and get no line diff.
const bigFile = 8 << 20

// safety keeps git from writing into the user's repository or running its
// hooks on our private index: no optional locks (git status would refresh
// the user's index), no hooks, big files streamed.
var safety = []string{
	"-c", "core.hooksPath=" + os.DevNull,
	"-c", fmt.Sprintf("core.bigFileThreshold=%d", bigFile),
	"-c", "gc.auto=0",
	"-c", "maintenance.auto=false",
	// Objects, packs and refs private like the rest of the store, whatever
	// the umask (0600 files, 0700 directories).
	"-c", "core.sharedRepository=0600",
}

// noLocks keeps git from refreshing an index it only reads. (No identity
// is needed: the store's commits are written by writeCommit.)
var noLocks = []string{"GIT_OPTIONAL_LOCKS=0"}

// gitCmd is one git invocation: in dir (when set), with extra environment.
type gitCmd struct {
	dir   string
	env   []string
	stdin io.Reader
	out   io.Writer
}

func (g gitCmd) command(args ...string) *exec.Cmd {
	full := append([]string{}, safety...)
	if g.dir != "" {
		full = append([]string{"-C", g.dir}, full...)
	}
	cmd := exec.Command("git", append(full, args...)...)
	cmd.Env = append(append(os.Environ(), noLocks...), g.env...)
	cmd.Stdin = g.stdin
	return cmd
}

// run runs git and returns its stdout (or streams it to g.out).
func (g gitCmd) run(args ...string) ([]byte, error) {
	cmd := g.command(args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	if g.out != nil {
		cmd.Stdout = g.out
	}
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, gitError(args, err, stderr.Bytes())
	}
	return stdout.Bytes(), nil
}

func gitError(args []string, err error, stderr []byte) error {
	msg := strings.TrimSpace(string(stderr))
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, msg)
}

func trim(b []byte) string { return strings.TrimSpace(string(b)) }
