package procid

import (
	"bytes"
	"os"
	"strconv"
)

// Zombie: a killed process whose parent died may linger unreaped where
// PID 1 does not reap; it holds nothing and counts as gone.
func Zombie(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(stat, ')')
	return i > 0 && i+2 < len(stat) && stat[i+2] == 'Z'
}
