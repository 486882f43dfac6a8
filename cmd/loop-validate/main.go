// Command loop-validate runs a validation command and prints its record.
package main

import (
	"os"

	"github.com/loopkit/loopkit/internal/command"
	"github.com/loopkit/loopkit/internal/command/loopvalidate"
)

func main() { os.Exit(command.Main("loop-validate", loopvalidate.Main)) }
