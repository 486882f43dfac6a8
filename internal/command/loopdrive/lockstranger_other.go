//go:build !linux

package loopdrive

// flockHolder: only Linux says who holds a lock (/proc/locks).
func flockHolder(string) int { return 0 }
