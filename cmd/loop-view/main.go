// Command loop-view: see 'loop-view --help'.
package main

import (
	"os"

	"github.com/loopkit/loopkit/internal/command"
	"github.com/loopkit/loopkit/internal/command/loopview"
)

func main() { os.Exit(command.Main("loop-view", loopview.Main)) }
