//go:build !linux

package loopdrive

// zombie: on other systems a zombie's parent reaps it soon; count it alive.
func zombie(pid int) bool { return false }
