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
