//go:build !linux

package procid

// Zombie: on other systems a zombie's parent reaps it soon; count it alive.
func Zombie(pid int) bool { return false }
