package gitrun

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// maxConfig caps what is read of a config file: git's are small.
const maxConfig = 1 << 20

// readSmall reads a regular file without waiting on a FIFO or reading a
// device: the agent can put either where a config file was.
func readSmall(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	return io.ReadAll(io.LimitReader(f, maxConfig))
}
