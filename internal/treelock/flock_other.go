//go:build !linux

package treelock

// FlockHolder: only Linux says who holds a lock (/proc/locks).
func FlockHolder(string) int { return 0 }
