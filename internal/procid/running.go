package procid

import "golang.org/x/sys/unix"

// Running reports whether pid names a process that can still act: it
// exists and is not a zombie (killed, its parent not yet reaping it,
// holding no lock and writing nothing). A pid alone may have been reused:
// where the start time was recorded, ask Alive, which also says this.
func Running(pid int) bool {
	if pid <= 0 || unix.Kill(pid, 0) == unix.ESRCH {
		return false
	}
	return !Zombie(pid)
}

// GroupExists reports whether process group pgid has a member left.
func GroupExists(pgid int) bool {
	return pgid > 1 && unix.Kill(-pgid, 0) != unix.ESRCH
}
