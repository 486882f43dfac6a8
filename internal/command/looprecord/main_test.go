package looprecord

import (
	"os"
	"os/exec"
	"testing"

	"github.com/loopkit/loopkit/internal/command"
)

// The test binary doubles as loop-record, so the tests can run it as real
// processes (concurrent writers, SIGKILL) without a separate build.
func TestMain(m *testing.M) {
	if os.Getenv("LOOPKIT_TEST_MAIN") == "loop-record" {
		os.Exit(command.Main("loop-record", Main))
	}
	os.Exit(m.Run())
}

func loopRecord(storeDir string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "LOOPKIT_TEST_MAIN=loop-record", "LOOP_STORE="+storeDir, "LOOP_LOG_LEVEL=error")
	return cmd
}
