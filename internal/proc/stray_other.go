//go:build !linux

package proc

// openForWrite cannot be told cheaply here (no file leases): assume a
// writer may have survived, so the recorder keeps exactly the bytes
// counted, at the cost of a copy.
func openForWrite(path string) bool { return path != "" }
