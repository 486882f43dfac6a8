package limits

import (
	"os"
	"path/filepath"
	"strings"
)

// Forks is how many forks each pids cgroup over this process refused at
// its pids.max (a container's --pids-limit), by the cgroup's folder: a
// command forking to the limit (bash retries 15 s, then exits 254) says
// nothing of it, and its exit status names no limit.
type Forks map[string]int64

// CountForks reads pids.events' max count of this process's pids cgroup
// (v2, or v1's pids hierarchy) and of its parents, whichever holds the
// limit; empty where there is none.
func CountForks() Forks {
	b, err := os.ReadFile(procCgroup)
	if err != nil {
		return nil
	}
	dir := ""
	for _, line := range strings.Split(string(b), "\n") {
		// "0::/path" on v2, "N:pids:/path" (or "N:pids,...") on v1
		id, rest, _ := strings.Cut(line, ":")
		ctrl, path, ok := strings.Cut(rest, ":")
		switch {
		case !ok:
		case id == "0" && ctrl == "":
			if dir == "" {
				dir = filepath.Join(cgroupRoot, path)
			}
		case hasPids(ctrl):
			dir = filepath.Join(cgroupRoot, ctrl, path)
		}
	}
	if dir == "" {
		return nil
	}
	f := Forks{}
	for {
		if n := counter(filepath.Join(dir, "pids.events"), "max"); n >= 0 {
			f[dir] = n
		}
		if !strings.HasPrefix(dir, cgroupRoot+"/") {
			break
		}
		dir = filepath.Dir(dir)
	}
	return f
}

func hasPids(ctrl string) bool {
	for _, c := range strings.Split(ctrl, ",") {
		if c == "pids" {
			return true
		}
	}
	return false
}

// Refused says which process limit refused forks since f was counted,
// with the fix; "" when none did.
func (f Forks) Refused() string {
	at := ""
	for dir, n := range CountForks() {
		if before, ok := f[dir]; ok && n > before && len(dir) > len(at) {
			at = dir // the closest limit that refused
		}
	}
	if at == "" {
		return ""
	}
	max, _ := os.ReadFile(filepath.Join(at, "pids.max"))
	return "the process limit (pids.max " + strings.TrimSpace(string(max)) + " in " + at + ") refused its forks: end what it leaves running, or raise it"
}
