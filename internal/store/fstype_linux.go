package store

import (
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// FSType names the file system path (or its nearest existing parent) is
// on, as mount(8) does ("nfs4", "vfat", "fuse.sshfs"); "" when unknown.
func FSType(path string) string {
	var st unix.Stat_t
	if !nearest(path, func(p string) bool { return unix.Stat(p, &st) == nil }) {
		return ""
	}
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	dev := fmt.Sprintf("%d:%d", unix.Major(st.Dev), unix.Minor(st.Dev))
	for line := range strings.SplitSeq(string(data), "\n") {
		// ID PARENT MAJOR:MINOR ROOT POINT OPTIONS [TAGS...] - TYPE SOURCE ...
		f := strings.Fields(line)
		if len(f) < 3 || f[2] != dev {
			continue
		}
		for i := 3; i+1 < len(f); i++ {
			if f[i] == "-" {
				return f[i+1]
			}
		}
	}
	return ""
}
