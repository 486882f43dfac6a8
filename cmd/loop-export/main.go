// Command loop-export sends runs as OpenTelemetry traces.
package main

import (
	"os"

	"github.com/loopkit/loopkit/internal/command"
	"github.com/loopkit/loopkit/internal/command/loopexport"
)

func main() { os.Exit(command.Main("loop-export", loopexport.Main)) }
