// Command loop-step: see 'loop-step --help'.
package main

import (
	"os"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/command/loopstep"
)

func main() { os.Exit(cli.Main("loop-step", loopstep.Main)) }
