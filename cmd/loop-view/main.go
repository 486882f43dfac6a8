// Command loop-view: see 'loop-view --help'.
package main

import (
	"os"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/command/loopview"
)

func main() { os.Exit(cli.Main("loop-view", loopview.Main)) }
