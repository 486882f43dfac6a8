package cli

import (
	"bytes"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/loopkit/loopkit/internal/exitcode"
)

// TestFollowingSignal: a follower stopped by SIGTERM (kill, timeout(1))
// exits 143, as a command killed by it would, and by SIGINT 130; before,
// both were 130, "interrupted (SIGINT)".
func TestFollowingSignal(t *testing.T) {
	for sig, want := range map[syscall.Signal]int{syscall.SIGTERM: 128 + 15, syscall.SIGINT: exitcode.Interrupt} {
		e := NewEnv("loop-view", nil, strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
		ctx, stop := e.Following()
		if err := syscall.Kill(os.Getpid(), sig); err != nil {
			t.Fatal(err)
		}
		<-ctx.Done()
		err := Stopped(ctx)
		stop()
		if got := e.Finish(err); got != want {
			t.Errorf("stopped by %v: exit %d, want %d", sig, got, want)
		}
	}
}
