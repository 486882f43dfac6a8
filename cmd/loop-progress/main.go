// Command loop-progress: see 'loop-progress --help'.
package main

import (
	"os"

	"github.com/loopkit/loopkit/internal/command"
	"github.com/loopkit/loopkit/internal/command/loopprogress"
)

func main() { os.Exit(command.Main("loop-progress", loopprogress.Main)) }
