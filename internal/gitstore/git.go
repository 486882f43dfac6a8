// Package gitstore keeps a run's work trees in a git object database of
// its own under the store (runs/<id>/git): the user's repository is only
// read, as an alternate object directory, and never written — no object,
// ref or index. Each iteration's resulting tree is kept as a commit whose
// parent is the step's base, under refs/iterations/<N>.
package gitstore

import (
	"io"
	"os/exec"
	"slices"
	"strings"

	"github.com/loopkit/loopkit/internal/gitrun"
)

// bigFile is git's core.bigFileThreshold here: larger files are streamed
// into packs, never read whole into memory, and get no line diff.
const bigFile = 8 << 20

// bigFileText is bigFile in decimal, a constant (TestBigFileText).
const bigFileText = "8388608"

// safety: big files streamed into packs, never read whole; objects,
// packs and refs private like the rest of the store, whatever the umask
// (0600 files, 0700 directories); no line-ending refusal. Hooks, pager, locks and the rest are
// gitrun's policy, the same for every git loopkit runs.
var safety = []string{
	"core.bigFileThreshold=" + bigFileText,
	"core.sharedRepository=0600",
	// the person's core.safecrlf guards their commits; a snapshot that
	// refused a CRLF file (or re-added an LF one under autocrlf) would
	// record nothing of the iteration
	"core.safecrlf=false",
	// the blobs git add writes outlive a power cut, as the trees and
	// commits loopkit writes do (writeLoose): one flush per git call
	// (a record's, which writes few, flushes each: see fsyncEach)
	"core.fsync=loose-object",
	"core.fsyncMethod=batch",
	// the store's indexes keep their checksum (feature.manyFiles drops
	// it, git 2.40): an index without one is never sealed (indexMAC), and
	// every snapshot would read every file
	"index.skipHash=false",
}

// gitCmd is one git invocation: in dir (when set), with extra environment.
type gitCmd struct {
	dir   string
	env   []string
	stdin io.Reader
	out   io.Writer
	// check runs before git: a run's private directory must still hold
	// only what loopkit wrote there.
	check func() error
	// fsyncEach: git flushes each object it writes (core.fsyncMethod=
	// fsync), for a call that writes few: the snapshot of a record, whose
	// new blobs are what the iteration changed. A batch flush creates and
	// frees a folder and a file per call (objects/tmp_objdir-*), and on
	// ext4 without a journal each inode freed makes every file created in
	// the next 30 s scan past it. Just as durable; 1,000 new files take
	// ~1 s more of wall time here, about the same CPU.
	fsyncEach bool
}

func (g gitCmd) cmd() gitrun.Cmd {
	config := safety
	if g.fsyncEach { // the last -c of a name wins
		config = append(slices.Clip(safety), "core.fsyncMethod=fsync")
	}
	return gitrun.Cmd{Dir: g.dir, Env: g.env, Config: config, Stdin: g.stdin, Stdout: g.out}
}

func (g gitCmd) command(args ...string) *exec.Cmd { return g.cmd().Command(args...) }

// run runs git and returns its stdout (or streams it to g.out).
func (g gitCmd) run(args ...string) ([]byte, error) {
	if g.check != nil {
		if err := g.check(); err != nil {
			return nil, err
		}
	}
	return g.cmd().Run(args...)
}

func gitError(args []string, err error, stderr []byte) error { return gitrun.Error(args, err, stderr) }

func trim(b []byte) string { return strings.TrimSpace(string(b)) }
