// Command loop-step: see 'loop-step --help'.
package main

import (
	"os"

	"github.com/loopkit/loopkit/internal/command"
	"github.com/loopkit/loopkit/internal/command/loopstep"
)

func main() { os.Exit(command.Main("loop-step", loopstep.Main)) }
