package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/loopkit/loopkit/internal/exitcode"
	"golang.org/x/sys/unix"
)

// An inner code survives a wrapper: Failf with %w keeps a usage error a
// usage error and an interrupt an interrupt (with %v they became exit 1).
func TestInnerCodeSurvivesWrapper(t *testing.T) {
	for _, tc := range []struct {
		name  string
		inner error
		want  int
	}{
		{"usage", Usagef("--max-wait %q: want a duration", "x"), exitcode.Usage},
		{"interrupt", WithCode(exitcode.Interrupt, errors.New("interrupted")), exitcode.Interrupt},
		{"bad input", BadInput(errors.New("stdin: not JSON")), exitcode.BadInput},
		{"plain", errors.New("disk full"), exitcode.Failure},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Failf("run r1: %w", fmt.Errorf("hold: %w", tc.inner))
			if got := Code(err); got != tc.want {
				t.Fatalf("Code(%v) = %d, want %d", err, got, tc.want)
			}
			var stderr bytes.Buffer
			env := NewEnv("loop-x", nil, nil, &bytes.Buffer{}, &stderr)
			if got := env.Finish(err); got != tc.want {
				t.Fatalf("Finish = %d, want %d", got, tc.want)
			}
			if !strings.Contains(stderr.String(), "run r1: hold: ") {
				t.Fatalf("stderr %q lost the wrapper's words", stderr.String())
			}
		})
	}
}

// The usage error's hint comes through the wrapper too.
func TestWrappedUsageKeepsHint(t *testing.T) {
	env := NewEnv("loop-x", nil, nil, &bytes.Buffer{}, &bytes.Buffer{})
	err := Failf("config: %w", env.UsageError("bad key"))
	var stderr bytes.Buffer
	env.Stderr = &stderr
	if code := env.Finish(err); code != exitcode.Usage || !strings.Contains(stderr.String(), "hint: see 'loop-x --help'") {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
}

// A usage error after a subcommand points at that subcommand's help, where
// its flags and arguments are (loop-view checkout RUN 1 without --to).
func TestUsageHintNamesSubcommand(t *testing.T) {
	for _, args := range [][]string{{"sub"}, {"sub", "--bogus"}} {
		var stderr bytes.Buffer
		env := NewEnv("loop-x", args, nil, &bytes.Buffer{}, &stderr)
		var opts struct {
			To string `long:"to" required:"yes"`
		}
		p := NewParser(env, &struct{}{}, "")
		if _, err := p.AddCommand("sub", "a subcommand", "", &opts); err != nil {
			t.Fatal(err)
		}
		_, err := Parse(env, p, nil, args)
		if err == nil {
			err = env.UsageError("bad")
		}
		if code := env.Finish(err); code != exitcode.Usage || !strings.Contains(stderr.String(), "hint: see 'loop-x sub --help'\n") {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr.String())
		}
	}
}

type subA struct{}

func (subA) Execute([]string) error { return nil }

// An unknown subcommand is one line in the words of the other usage
// errors, not go-flags' two sentences.
func TestUnknownSubcommand(t *testing.T) {
	env := NewEnv("loop-x", []string{"nosuch"}, nil, &bytes.Buffer{}, &bytes.Buffer{})
	var common Common
	p := NewParser(env, &common, "")
	for _, name := range []string{"runs", "logs", "tail"} {
		if _, err := p.AddCommand(name, name, "", &subA{}); err != nil {
			t.Fatal(err)
		}
	}
	_, err := Parse(env, p, &common, env.Args)
	want := `unknown subcommand "nosuch": give one of logs, runs, tail`
	if err == nil || err.Error() != want {
		t.Fatalf("Parse(nosuch) = %v, want %q", err, want)
	}
}

// A mistake about a flag is said as the driver says it (loop: unknown flag
// --X, --X needs a value), naming the flag as typed: go-flags wrote
// "unknown flag `bogus'" (no dashes; "-1" came out as `1'), "Invalid value
// `x' for option `--m'. Allowed values are: a or b", "the required flag
// `--to' was not specified".
func TestFlagMistakesInHouseWords(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--bogus"}, "unknown flag --bogus"},
		{[]string{"--bogus=3"}, "unknown flag --bogus"},
		{[]string{"-x"}, "unknown flag -x"},
		{[]string{"-vx"}, "unknown flag -x"},
		{[]string{"--to", "d", "-1"}, "unknown flag -1"},
		{[]string{"--to"}, "--to needs a value"},
		{[]string{"--to", "--"}, "--to needs a value"},
		{[]string{"--to", "-.x"}, "--to needs a value: -.x reads as a flag; write --to=-.x if it is the value"},
		{[]string{"--to", "-v"}, "--to needs a value: -v reads as a flag; write --to=-v if it is the value"},
		{[]string{"--to", "d", "--mode", "c"}, `--mode must be a or b, got "c"`},
		{[]string{"--to", "d", "--verbose=yes"}, "--verbose takes no value"},
		{[]string{"-v"}, "--to is required"},
	} {
		env := NewEnv("loop-x", tc.args, nil, &bytes.Buffer{}, &bytes.Buffer{})
		var opts struct {
			To      string `long:"to" required:"yes"`
			Mode    string `long:"mode" choice:"a" choice:"b"`
			Verbose bool   `short:"v" long:"verbose"`
		}
		_, err := Parse(env, NewParser(env, &opts, ""), nil, tc.args)
		if err == nil || err.Error() != tc.want || Code(err) != exitcode.Usage {
			t.Errorf("%q: %v (exit %d), want %q", tc.args, err, Code(err), tc.want)
		}
	}
}

// A disk or a mode that refused a write is told with its fix, whether
// the errno is still wrapped or was flattened into the message.
func TestDiskHint(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{&os.PathError{Op: "write", Path: "/s/run.json", Err: syscall.ENOSPC}, "the disk is full"},
		{errors.New("queue ticket: write /r/q.ticket: no space left on device"), "the disk is full"},
		{&os.PathError{Op: "write", Path: "/s/x", Err: syscall.EDQUOT}, "the disk quota is used up"},
		{&os.PathError{Op: "open", Path: "/s/x", Err: syscall.EROFS}, "read-only"},
		{&os.PathError{Op: "open", Path: "/s/x", Err: syscall.EACCES}, "may not read or write that file or folder: give it back its modes (chmod u+rwX)"},
		{&os.PathError{Op: "write", Path: "/s/executor.log", Err: syscall.EFBIG}, "the file size limit (ulimit -f"},
		{errors.New("append: write /s/iterations.jsonl: file too large"), "raise it (ulimit -f unlimited)"},
		{fmt.Errorf("the work tree: git rev-parse: %w", os.NewSyscallError("pipe2", syscall.EMFILE)), "the open file limit (ulimit -n"},
		{&os.PathError{Op: "fork/exec", Path: "/usr/bin/git", Err: syscall.EAGAIN}, "the process limit (ulimit -u"},
		{&os.PathError{Op: "read", Path: "/r/fifo", Err: syscall.EAGAIN}, ""},
		{errors.New("mkdir /r/queue: not a directory"), ""},
	} {
		got := DiskHint(c.err)
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("DiskHint(%v) = %q, want one saying %q", c.err, got, c.want)
		}
	}
}

// A file system out of inodes refuses a write with ENOSPC while df shows
// it half empty: the hint names inodes and df -i, for the error's path or
// the one git's message names, and the disk only when bytes ran out.
func TestDiskHintInodes(t *testing.T) {
	dir := t.TempDir()
	top := mountOf(dir) // what df -i lists
	var counts unix.Statfs_t
	var asked string
	old := statfs
	statfs = func(path string, st *unix.Statfs_t) error { asked, *st = path, counts; return nil }
	t.Cleanup(func() { statfs = old })
	inodes := unix.Statfs_t{Files: 64, Ffree: 3, Blocks: 512, Bfree: 480, Bavail: 480}
	bytes := unix.Statfs_t{Files: 1 << 20, Ffree: 1 << 19, Blocks: 512, Bfree: 0, Bavail: 0}
	for _, c := range []struct {
		err    error
		counts unix.Statfs_t
		want   string
	}{
		{&os.PathError{Op: "open", Path: dir + "/runs/r/iterations/002/agent.stderr", Err: syscall.ENOSPC}, inodes, "the file system of " + top + " has no free inodes left (df -i " + top + ")"},
		{fmt.Errorf("git add -A -- .: exit status 128: fatal: Unable to create '%s/x.git/index.lock': No space left on device", dir), inodes, "no free inodes left (df -i " + top + ")"},
		{errors.New("mkdir " + dir + "/git/objects/f6: no space left on device"), inodes, "no free inodes"},
		{&os.PathError{Op: "write", Path: dir + "/run.json", Err: syscall.ENOSPC}, bytes, "the disk is full: free space on it"},
		{&os.PathError{Op: "write", Path: "run.json", Err: syscall.ENOSPC}, inodes, "the disk is full: free space on it"},
	} {
		counts, asked = c.counts, ""
		if got := DiskHint(c.err); !strings.Contains(got, c.want) {
			t.Errorf("DiskHint(%v) = %q (statfs of %q), want one saying %q", c.err, got, asked, c.want)
		}
	}
}
