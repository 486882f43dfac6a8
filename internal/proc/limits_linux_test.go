package proc

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// cpuHelper runs a busy loop under the CPU time limit the test gave this
// process, and prints how it ended.
func cpuHelper() {
	res, err := Run(Spec{Args: []string{"bash", "-c", "while :; do :; done"}})
	if err != nil {
		fmt.Println("run:", err)
		os.Exit(1)
	}
	fmt.Println(res.Signal, res.Err)
	os.Exit(0)
}

// bash's `ulimit -t 1` sets the soft and hard limits alike, so the kernel
// sends SIGKILL, not SIGXCPU: the record names the limit all the same.
func TestKilledAtCPULimit(t *testing.T) {
	limitedHelper(t, "--cpu=1", "PROC_CPU_HELPER=1",
		"SIGKILL killed by SIGKILL: it reached its CPU time limit (ulimit -t 1 s): raise it (ulimit -t unlimited)\n")
}

// limitedHelper runs this test binary's helper (env) under prlimit's
// limit and wants it to print want.
func limitedHelper(t *testing.T, limit, env, want string) {
	t.Helper()
	if _, err := exec.LookPath("prlimit"); err != nil {
		t.Skip("no prlimit")
	}
	cmd := exec.Command("prlimit", limit, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), env)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper: %v %s", err, out)
	}
	if string(out) != want {
		t.Fatalf("helper said %q, want %q", out, want)
	}
}

// fsizeHelper runs a writer that ignores SIGXFSZ, as a Go program does,
// past the file size limit the test gave this process, and prints what
// the result says of it.
func fsizeHelper(dir string) {
	res, err := Run(Spec{Args: []string{"sh", "-c", `trap "" XFSZ; head -c 10000 /dev/zero; echo done >&2`},
		StdoutPath: filepath.Join(dir, "out"), StderrPath: filepath.Join(dir, "err")})
	if err != nil {
		fmt.Println("run:", err)
		os.Exit(1)
	}
	fmt.Println(res.StdoutBytes, res.ExitCode, res.CutByFileSize())
	os.Exit(0)
}

// A writer that ignores SIGXFSZ gets EFBIG at the limit and goes on: its
// output is cut without a word, which the result now says.
func TestCutByFileSize(t *testing.T) {
	limitedHelper(t, "--fsize=4096", "PROC_FSIZE_HELPER="+t.TempDir(),
		"4096 0 its stdout stopped at the file size limit (ulimit -f 4 KiB): what it wrote after is lost; raise it (ulimit -f unlimited)\n")
}
