package procid

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
	"testing"
)

func TestStartAndAlive(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("no start times here")
	}
	self, err := Start(os.Getpid())
	if err != nil || self == 0 {
		t.Fatalf("Start(self) = %d, %v", self, err)
	}
	if again, _ := Start(os.Getpid()); again != self {
		t.Fatalf("Start(self) changed: %d then %d", self, again)
	}
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	st, err := Start(pid)
	if err != nil || !Alive(pid, st) {
		t.Fatalf("child: start %d err %v alive %v", st, err, Alive(pid, st))
	}
	if Alive(pid, st+1) {
		t.Error("Alive with another start time: a reused pid would pass")
	}
	cmd.Process.Kill()
	cmd.Wait()
	if Alive(pid, st) {
		t.Error("a reaped child is still alive")
	}
	if _, err := Start(pid); !errors.Is(err, ErrNoProcess) {
		t.Errorf("Start(reaped) err %v, want ErrNoProcess", err)
	}
}

func TestNoSuchPid(t *testing.T) {
	for _, pid := range []int{-1, 0, 1 << 30} {
		if _, err := Start(pid); err == nil {
			t.Errorf("Start(%d) gave no error", pid)
		}
		if Alive(pid, 12345) {
			t.Errorf("Alive(%d)", pid)
		}
	}
	if Alive(os.Getpid(), 0) {
		t.Error("Alive with start 0 (never recorded) must be false")
	}
}

// Ancestor: this process's parent is one; itself, and no process, are not.
func TestAncestor(t *testing.T) {
	if !Ancestor(os.Getppid()) {
		t.Errorf("parent %d is no ancestor", os.Getppid())
	}
	if Ancestor(os.Getpid()) || Ancestor(0) {
		t.Error("itself or pid 0 is an ancestor")
	}
}
