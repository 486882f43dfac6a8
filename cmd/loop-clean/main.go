// Command loop-clean: see 'loop-clean --help'.
package main

import (
	"os"

	"github.com/loopkit/loopkit/pkg/cli"
	"github.com/loopkit/loopkit/pkg/commands/clean"
)

func main() { os.Exit(cli.Main("loop-clean", clean.Main)) }
