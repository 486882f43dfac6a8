// Command loop-clean: see 'loop-clean --help'.
package main

import (
	"os"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/command/loopclean"
)

func main() { os.Exit(cli.Main("loop-clean", loopclean.Main)) }
