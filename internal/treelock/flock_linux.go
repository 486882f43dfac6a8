package treelock

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// FlockHolder is the pid /proc/locks names for a flock on path, 0 when
// none is found.
func FlockHolder(path string) int {
	var st unix.Stat_t
	if unix.Stat(path, &st) != nil {
		return 0
	}
	id := fmt.Sprintf("%02x:%02x:%d", unix.Major(st.Dev), unix.Minor(st.Dev), st.Ino)
	f, err := os.Open("/proc/locks")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() { // 1: FLOCK  ADVISORY  WRITE 30248 fe:00:1234567 0 EOF
		fs := strings.Fields(sc.Text())
		if len(fs) >= 6 && fs[1] == "FLOCK" && fs[5] == id {
			if pid, err := strconv.Atoi(fs[4]); err == nil {
				return pid
			}
		}
	}
	return 0
}
