// Command loop-progress: see 'loop-progress --help'.
package main

import (
	"os"

	"github.com/loopkit/loopkit/pkg/cli"
	"github.com/loopkit/loopkit/pkg/commands/progress"
)

func main() { os.Exit(cli.Main("loop-progress", progress.Main)) }
