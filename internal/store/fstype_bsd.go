//go:build darwin || freebsd

package store

import "golang.org/x/sys/unix"

// FSType names the file system path (or its nearest existing parent) is
// on ("apfs", "msdos", "nfs", "smbfs"); "" when unknown.
func FSType(path string) string {
	var st unix.Statfs_t
	if !nearest(path, func(p string) bool { return unix.Statfs(p, &st) == nil }) {
		return ""
	}
	return unix.ByteSliceToString(st.Fstypename[:])
}
