package cli

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// pipeChildEnv makes the test binary a command run by Main that writes
// more than a pipe holds to stdout.
const pipeChildEnv = "LOOPKIT_CLI_PIPE_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(pipeChildEnv) != "" {
		os.Exit(Main("loop-x", func(e *Env) error {
			if os.Getenv(pipeChildEnv) == "silent" { // a record, then the child's status
				if _, err := e.Stdout.WriteString("{\"type\":\"validation\"}\n"); err != nil {
					return err
				}
				return Silent(3)
			}
			_, err := e.Stdout.WriteString(strings.Repeat("line\n", 1<<16))
			return err
		}))
	}
	os.Exit(m.Run())
}

// A closed stdout (`| head`) ends a command quietly, exit 0: not killed by
// SIGPIPE, which Go does on a write to fd 1 unless the signal is caught.
func TestClosedStdoutEndsQuietly(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	defer w.Close()
	var stderr bytes.Buffer
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), pipeChildEnv+"=1")
	cmd.Stdout, cmd.Stderr = w, &stderr
	err = cmd.Run()
	if err != nil || stderr.Len() > 0 {
		t.Fatalf("a write to a closed stdout: %v, stderr %q; want exit 0, quiet", err, stderr.String())
	}
}

// A record that never reached stdout is said, whatever the child's status:
// loop-validate of a failing command into `> /dev/full` exited with the
// command's code and no word, its record lost. A closed pipe stays quiet
// and keeps the child's status.
func TestSilentStatusKeepsWriteError(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full here")
	}
	defer full.Close()
	run := func(stdout *os.File) (int, string) {
		var stderr bytes.Buffer
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), pipeChildEnv+"=silent")
		cmd.Stdout, cmd.Stderr = stdout, &stderr
		cmd.Run()
		return cmd.ProcessState.ExitCode(), stderr.String()
	}
	if code, stderr := run(full); code != 1 || !strings.Contains(stderr, "no space left on device") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("stdout full under a child's exit 3: exit %d, stderr %q; want 1 and one line naming it", code, stderr)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	defer w.Close()
	if code, stderr := run(w); code != 3 || stderr != "" {
		t.Errorf("closed stdout under a child's exit 3: exit %d, stderr %q; want 3, quiet", code, stderr)
	}
}
