package proc

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestPlainWords(t *testing.T) {
	plain := map[string][]string{
		"go test ./...":                {"go", "test", "./..."},
		"  sh check.sh\t-x ":           {"sh", "check.sh", "-x"},
		"make -j4 test LDFLAGS=-s":     {"make", "-j4", "test", "LDFLAGS=-s"},
		"npm run test:unit -- --a=b,c": {"npm", "run", "test:unit", "--", "--a=b,c"},
		"./scripts/ci +x @y %z":        {"./scripts/ci", "+x", "@y", "%z"},
	}
	for line, want := range plain {
		if got, ok := PlainWords(line); !ok || !slices.Equal(got, want) {
			t.Errorf("PlainWords(%q) = %q, %v; want %q", line, got, ok, want)
		}
	}
	for _, line := range []string{
		"", "   ", "go test ./... && go vet ./...", "make test; echo", "a | b", "a > out",
		"a < in", "a &", "go test $PKG", "go test `x`", "go test 'a b'", `go test "a"`,
		`go test a\ b`, "ls *.go", "ls a?", "ls [ab]", "cd ~", "ls ~/x", "a # comment",
		"! false", "{ a; }", "(a)", "CGO_ENABLED=0 go test", "exit 3", "true", "test -f x",
		"echo hi", "cd sub", "exec make", ". ./env.sh", ": nothing", "if", "go test\n./x",
		"go tëst", "kill 1", "command -v go", "pushd sub", "shopt -s x", "history",
	} {
		if got, ok := PlainWords(line); ok {
			t.Errorf("PlainWords(%q) = %q: left to sh, it must not be", line, got)
		}
	}
}

// A plain command line runs without sh in between: its parent is this
// process. It ran under `sh -c` before, one process more an iteration.
func TestRunShellStartsPlainWordsDirectly(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ppid.sh"), []byte("echo $PPID\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := RunShell(Spec{Dir: dir, InlineCap: 1024}, "sh ppid.sh")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(res.Stdout)); got != strconv.Itoa(os.Getpid()) || res.StatusCode != 0 {
		t.Fatalf("parent %s, status %d: want this process, %d, and 0", got, res.StatusCode, os.Getpid())
	}
}

// What does not start directly is sh's to run and to explain, as before:
// not found, a script without #!, a builtin, quoting.
func TestRunShellLeavesTheRestToSh(t *testing.T) {
	// sh's words for a missing command depend on PATH: a folder in it the
	// user may not search (root's, through su) makes "Permission denied"
	t.Setenv("PATH", "/usr/bin:/bin")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "noshebang"), []byte("echo from-sh\nexit 4\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		line, out, errHas string
		status            int
	}{
		{"no-such-command-loopkit x", "", "not found", 127},
		{"./noshebang", "from-sh\n", "", 4},
		{"exit 3", "", "", 3},
		{"echo 'a  b'", "a  b\n", "", 0},
	} {
		res, err := RunShell(Spec{Dir: dir, InlineCap: 1024}, c.line)
		if err != nil {
			t.Fatal(err)
		}
		if string(res.Stdout) != c.out || !strings.Contains(string(res.Stderr), c.errHas) || res.StatusCode != c.status || res.Err != nil {
			t.Errorf("%q: stdout %q stderr %q status %d err %v; want %q, %q in stderr, %d",
				c.line, res.Stdout, res.Stderr, res.StatusCode, res.Err, c.out, c.errHas, c.status)
		}
	}
}

// A PATH entry that is not absolute names a folder of the command's own
// directory to sh, but exec.LookPath reads it from this process's: a
// project's bin/prog was passed over for a later /abs/prog (sh: the
// project's, failing; direct: the other, passing).
func TestRunShellRelativePathEntryIsSh(t *testing.T) {
	dir, abs := t.TempDir(), t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct{ path, body string }{
		{filepath.Join(dir, "bin", "loopkit-prog"), "#!/bin/sh\necho project\nexit 1\n"},
		{filepath.Join(abs, "loopkit-prog"), "#!/bin/sh\necho other\n"},
	} {
		if err := os.WriteFile(f.path, []byte(f.body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, entry := range []string{"bin", ""} {
		if entry == "" { // empty: the current directory
			if err := os.Rename(filepath.Join(dir, "bin", "loopkit-prog"), filepath.Join(dir, "loopkit-prog")); err != nil {
				t.Fatal(err)
			}
		}
		path := entry + ":" + abs + ":" + os.Getenv("PATH")
		t.Setenv("PATH", path)
		res, err := RunShell(Spec{Dir: dir, InlineCap: 1024}, "loopkit-prog")
		if err != nil {
			t.Fatal(err)
		}
		if string(res.Stdout) != "project\n" || res.StatusCode != 1 {
			t.Errorf("PATH entry %q: stdout %q, status %d; want sh's: project, 1", entry, res.Stdout, res.StatusCode)
		}
	}
}

// A script saved with CRLF line ends is there, yet the kernel answers
// ENOENT for its "/bin/sh\r": run directly or through RunShell, its start
// error names the #! line, not "command not found" (sh's "not found").
func TestStartCRLFScriptNamed(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "crlf.sh"), []byte("#!/bin/sh\r\nexit 0\r\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, run := range []func() (*Result, error){
		func() (*Result, error) { return Run(Spec{Dir: dir, Args: []string{"./crlf.sh"}}) },
		func() (*Result, error) { return RunShell(Spec{Dir: dir}, "./crlf.sh") },
	} {
		res, err := run()
		if err != nil {
			t.Fatal(err)
		}
		if res.Err == nil || !strings.Contains(res.Err.Error(), `cannot start ./crlf.sh: its #! line ends in a carriage return`) ||
			res.StatusCode != 127 || !res.NotFound {
			t.Errorf("err %v, status %d, not found %v; want the #! line named, 127", res.Err, res.StatusCode, res.NotFound)
		}
	}
	// a byte-order mark before #!: ENOEXEC, and sh ran the bash script
	// as its own ("[[: not found", 127)
	if err := os.WriteFile(filepath.Join(dir, "bom.sh"), []byte("\ufeff#!/bin/bash\n[[ -d . ]]\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	res, err := RunShell(Spec{Dir: dir}, "./bom.sh")
	if err != nil {
		t.Fatal(err)
	}
	if res.Err == nil || !strings.Contains(res.Err.Error(), `cannot execute ./bom.sh: it starts with a byte-order mark`) || res.StatusCode != 126 {
		t.Errorf("err %v, status %d; want the byte-order mark named, 126", res.Err, res.StatusCode)
	}
}
