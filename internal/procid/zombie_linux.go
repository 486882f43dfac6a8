package procid

import (
	"bytes"
	"os"
	"strconv"
)

// statFields are the fields of /proc/PID/stat after the command name,
// field 3 (state) first: the name may hold spaces and parentheses, so they
// are counted from the last ')'. False when the process is gone.
func statFields(pid int) ([][]byte, bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	i := bytes.LastIndexByte(data, ')')
	if err != nil || i < 0 {
		return nil, false
	}
	return bytes.Fields(data[i+1:]), true
}

// Zombie: a killed process whose parent died may linger unreaped where
// PID 1 does not reap; it holds nothing and counts as gone.
func Zombie(pid int) bool {
	state, _, ok := State(pid)
	return ok && state == 'Z'
}

// State is a process's state letter (R, S, Z, ...) and its session.
func State(pid int) (state byte, session int, ok bool) {
	f, ok := statFields(pid)
	if !ok || len(f) < 4 || len(f[0]) != 1 {
		return 0, 0, false
	}
	session, err := strconv.Atoi(string(f[3]))
	return f[0][0], session, err == nil
}
