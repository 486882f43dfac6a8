package procid

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
)

// start reads field 22 of /proc/PID/stat (starttime, in clock ticks since
// boot). The command name (field 2) may hold spaces and parentheses, so
// the fields are counted from the last ')'.
func start(pid int) (uint64, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if errors.Is(err, os.ErrNotExist) {
		return 0, fmt.Errorf("pid %d: %w", pid, ErrNoProcess)
	}
	if err != nil {
		return 0, err
	}
	return parseStat(data)
}

func parseStat(data []byte) (uint64, error) {
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, errors.New("/proc stat: no command name")
	}
	// After ") " come fields 3 (state), 4, ...: starttime is the 20th of them.
	fields := bytes.Fields(data[i+1:])
	if len(fields) < 20 {
		return 0, errors.New("/proc stat: too few fields")
	}
	n, err := strconv.ParseUint(string(fields[19]), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("/proc stat: starttime: %w", err)
	}
	// A process started in the boot's first tick would read 0: keep 0 for "none".
	return n + 1, nil
}
