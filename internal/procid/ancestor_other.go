//go:build !linux

package procid

import "os"

// Ancestor reports whether pid is this process's parent; the rest of the
// chain is not read here.
func Ancestor(pid int) bool { return pid > 0 && os.Getppid() == pid }
