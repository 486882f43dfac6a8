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
	dir := t.TempDir()
	defer func(p, c, v string) { procCgroup, cgroupRoot, vmstat = p, c, v }(procCgroup, cgroupRoot, vmstat)
	procCgroup, vmstat = filepath.Join(dir, "cgroup"), filepath.Join(dir, "vmstat") // no cgroup file: the machine's count
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

// In a cgroup v2 container the count is the cgroup's own (memory.events):
// another container's kill on the same machine says nothing of this one.
func TestOOMKillsOfCgroup(t *testing.T) {
	dir := t.TempDir()
	defer func(p, c, v string) { procCgroup, cgroupRoot, vmstat = p, c, v }(procCgroup, cgroupRoot, vmstat)
	procCgroup, cgroupRoot, vmstat = filepath.Join(dir, "cgroup"), filepath.Join(dir, "fs"), filepath.Join(dir, "vmstat")
	os.WriteFile(vmstat, []byte("nr 1\noom_kill 9\n"), 0o600)
	os.WriteFile(procCgroup, []byte("0::/box/agent\n"), 0o600)
	os.MkdirAll(filepath.Join(cgroupRoot, "box", "agent"), 0o700)
	if n := OOMKills(); n != 9 {
		t.Errorf("no memory.events: %d, want the machine's 9", n)
	}
	os.WriteFile(filepath.Join(cgroupRoot, "box", "agent", "memory.events"), []byte("low 0\nhigh 0\nmax 3\noom 1\noom_kill 2\noom_group_kill 0\n"), 0o600)
	if n := OOMKills(); n != 2 {
		t.Errorf("memory.events: %d, want the cgroup's 2", n)
	}
}

// A command forking to a container's pids.max is told as that limit: the
// pids.events max count of the process's cgroup (v2) or of its v1 pids
// hierarchy, or of a parent holding the limit, grew while it ran.
func TestForksRefused(t *testing.T) {
	dir := t.TempDir()
	defer func(p, c string) { procCgroup, cgroupRoot = p, c }(procCgroup, cgroupRoot)
	procCgroup, cgroupRoot = filepath.Join(dir, "cgroup"), filepath.Join(dir, "fs")
	for _, c := range []struct{ cgroup, limited string }{
		{"0::/box/agent\n", "box/agent"},
		{"0::/box/agent\n", "box"},
		{"9:name=systemd:/\n8:pids:/box\n0::/\n", "pids/box"},
		{"8:cpu,pids:/box/in\n0::/\n", "cpu,pids/box"},
	} {
		os.RemoveAll(cgroupRoot)
		os.WriteFile(procCgroup, []byte(c.cgroup), 0o600)
		limited := filepath.Join(cgroupRoot, c.limited)
		os.MkdirAll(filepath.Join(cgroupRoot, "box", "agent"), 0o700)
		os.MkdirAll(filepath.Join(cgroupRoot, "pids", "box"), 0o700)
		os.MkdirAll(filepath.Join(cgroupRoot, "cpu,pids", "box", "in"), 0o700)
		os.WriteFile(filepath.Join(limited, "pids.max"), []byte("40\n"), 0o600)
		os.WriteFile(filepath.Join(limited, "pids.events"), []byte("max 2\n"), 0o600)
		forks := CountForks()
		if got := forks.Refused(); got != "" {
			t.Errorf("%q: %q before any fork was refused", c.cgroup, got)
		}
		os.WriteFile(filepath.Join(limited, "pids.events"), []byte("max 5\n"), 0o600)
		want := "the process limit (pids.max 40 in " + limited + ") refused its forks: end what it leaves running, or raise it"
		if got := forks.Refused(); got != want {
			t.Errorf("%q: %q, want %q", c.cgroup, got, want)
		}
	}
	os.WriteFile(procCgroup, []byte("0::/\n"), 0o600)
	if f := CountForks(); f.Refused() != "" {
		t.Errorf("no pids cgroup: %v", f)
	}
}
