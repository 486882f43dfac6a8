// Command loop-drive is the Go half of the bash driver: it checks settings,
// holds a run for its driver, and decides each next action from the log.
package main

import (
	"os"

	"github.com/loopkit/loopkit/internal/command"
	"github.com/loopkit/loopkit/internal/command/loopdrive"
)

func main() { os.Exit(command.Main(loopdrive.Name(), loopdrive.Main)) }
