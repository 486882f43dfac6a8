package procid

import (
	"os"
	"strconv"
)

// Ancestor reports whether pid is a parent of this process, or a parent's
// parent, and so on (read from /proc/PID/stat, field 4).
func Ancestor(pid int) bool {
	for p, n := os.Getppid(), 0; p > 0 && n < 256; n++ {
		if p == pid {
			return true // pid 1 too: a container's first process may be a driver
		}
		if p == 1 {
			return false
		}
		fields, ok := statFields(p)
		if !ok || len(fields) < 2 {
			return false
		}
		var err error
		if p, err = strconv.Atoi(string(fields[1])); err != nil {
			return false
		}
	}
	return false
}
