// Command loop-validate runs a validation command and prints its record.
package main

import (
	"os"

	"github.com/loopkit/loopkit/pkg/cli"
	"github.com/loopkit/loopkit/pkg/commands/validate"
)

func main() { os.Exit(cli.Main("loop-validate", validate.Main)) }
