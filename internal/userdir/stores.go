package userdir

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// StoresFile names, one absolute path a line, the stores the person has
// run loops in, for `loop resume --interrupted --all-stores`.
const StoresFile = "stores"

// storesMax caps what is read of the file: far past any real list.
const storesMax = 4 << 20

// RememberStore adds root to the stores file unless it is there: one
// append of the whole line under an exclusive flock, so two drivers
// starting at once neither lose nor tear a line.
func RememberStore(root string) error {
	dir, err := State()
	if err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(dir, StoresFile), os.O_RDWR|os.O_CREATE|os.O_APPEND|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return errors.New(filepath.Join(dir, StoresFile) + " is not a regular file: remove it")
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		return err
	}
	data := make([]byte, storesMax)
	n, _ := f.ReadAt(data, 0)
	data = data[:n]
	for _, l := range strings.Split(string(data), "\n") {
		if l == root {
			return nil
		}
	}
	line := root + "\n"
	if n > 0 && !bytes.HasSuffix(data, []byte("\n")) {
		line = "\n" + line // a torn last line stays apart from this one
	}
	if _, err := f.WriteString(line); err != nil {
		return err
	}
	return f.Sync()
}

// Stores lists the remembered stores, each once, in the order they were
// first remembered; lines that are not absolute paths are skipped.
func Stores() ([]string, error) {
	dir, err := State()
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, StoresFile), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, errors.New(filepath.Join(dir, StoresFile) + " is not a regular file: remove it")
	}
	data := make([]byte, storesMax)
	n, _ := f.ReadAt(data, 0)
	seen := map[string]bool{}
	var out []string
	for _, l := range strings.Split(string(data[:n]), "\n") {
		if filepath.IsAbs(l) && !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	return out, nil
}
