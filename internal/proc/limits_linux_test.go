package proc

import (
	"fmt"
	"os"
	"os/exec"
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
	if _, err := exec.LookPath("prlimit"); err != nil {
		t.Skip("no prlimit")
	}
	cmd := exec.Command("prlimit", "--cpu=1", os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "PROC_CPU_HELPER=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper: %v %s", err, out)
	}
	want := "SIGKILL killed by SIGKILL: it reached its CPU time limit (ulimit -t 1 s): raise it (ulimit -t unlimited)\n"
	if string(out) != want {
		t.Fatalf("helper said %q, want %q", out, want)
	}
}
