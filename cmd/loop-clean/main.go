// Command loop-clean: see 'loop-clean --help'.
package main

import (
	"os"

	"github.com/loopkit/loopkit/internal/command"
	"github.com/loopkit/loopkit/internal/command/loopclean"
)

func main() { os.Exit(command.Main("loop-clean", loopclean.Main)) }
