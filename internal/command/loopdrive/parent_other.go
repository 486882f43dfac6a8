//go:build !linux

package loopdrive

// dieWithParent: no parent-death signal here; the holder polls its parent.
func dieWithParent() {}
