package procid

import (
	"os"
	"strings"
	"sync"
)

// bootIDFile names this boot on Linux, where a start time counts clock
// ticks since boot: after a reboot the same pid can start at the same
// tick. macOS's start times count from the epoch: "" there suffices.
var bootIDFile = "/proc/sys/kernel/random/boot_id"

var (
	bootOnce sync.Once
	bootID   string
)

// Boot is an id of the machine's current boot, "" where unknown. A pid
// and start time recorded in another boot name no process of this one.
func Boot() string {
	bootOnce.Do(func() {
		if data, err := os.ReadFile(bootIDFile); err == nil {
			bootID = strings.TrimSpace(string(data))
		}
	})
	return bootID
}
