// Command loop-view: see 'loop-view --help'.
package main

import (
	"os"

	"github.com/loopkit/loopkit/pkg/cli"
	"github.com/loopkit/loopkit/pkg/commands/view"
)

func main() { os.Exit(cli.Main("loop-view", view.Main)) }
