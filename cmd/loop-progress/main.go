// Command loop-progress: see 'loop-progress --help'.
package main

import (
	"os"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/command/loopprogress"
)

func main() { os.Exit(cli.Main("loop-progress", loopprogress.Main)) }
