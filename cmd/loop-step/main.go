// Command loop-step: see 'loop-step --help'.
package main

import (
	"os"

	"github.com/loopkit/loopkit/pkg/cli"
	"github.com/loopkit/loopkit/pkg/commands/step"
)

func main() { os.Exit(cli.Main("loop-step", step.Main)) }
