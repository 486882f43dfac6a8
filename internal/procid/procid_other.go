//go:build !linux && !darwin

package procid

import "errors"

// start is unknown here: nothing can be proved to be the recorded process,
// so nothing is ever signalled on its behalf.
func start(pid int) (uint64, error) {
	return 0, errors.New("process start times are not supported on this system")
}
