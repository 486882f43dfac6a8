package limits

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// An agent the out-of-memory killer ended (the container's memory.max) is
// told as that: a bare "killed by SIGKILL" named no cause.
func TestWhyOOM(t *testing.T) {
	vmstat = filepath.Join(t.TempDir(), "vmstat")
	defer func() { vmstat = "/proc/vmstat" }()
	write := func(s string) {
		if err := os.WriteFile(vmstat, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("nr_free_pages 1\noom_kill 4\nnr_x 2\n")
	before := OOMKills()
	if before != 4 {
		t.Fatalf("OOMKills = %d, want 4", before)
	}
	if why := Why(syscall.SIGKILL, 0, before); why != "" {
		t.Errorf("no new OOM kill: %q", why)
	}
	write("nr_free_pages 1\noom_kill 5\nnr_x 2\n")
	if why := Why(syscall.SIGKILL, 0, before); !strings.Contains(why, "out-of-memory killer") {
		t.Errorf("an OOM kill meanwhile: %q", why)
	}
	if why := Why(syscall.SIGTERM, 0, before); why != "" {
		t.Errorf("SIGTERM is no limit's: %q", why)
	}
	for _, bad := range []string{"", "oom_kill", "nr 1\noom_kill \n", "nr 1\noom_kill x\n"} {
		write(bad)
		if n := OOMKills(); n != -1 {
			t.Errorf("OOMKills of %q = %d, want -1 (unknown)", bad, n)
		}
	}
	if why := Why(syscall.SIGKILL, 0, -1); why != "" {
		t.Errorf("unknown count: %q", why)
	}
}
