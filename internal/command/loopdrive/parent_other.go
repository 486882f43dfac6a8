//go:build !linux

package loopdrive

import "time"

// dieWithParent: no parent-death signal here; the holder polls its parent.
func dieWithParent() {}

// parentPoll is how often the waiting holder looks at its parent: a
// driver that dies is noticed within it, and its locks released.
const parentPoll = 100 * time.Millisecond
