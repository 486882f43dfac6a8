// Command loop-record appends iterations to a run and manages runs.
package main

import (
	"os"

	"github.com/loopkit/loopkit/internal/command"
	"github.com/loopkit/loopkit/internal/command/looprecord"
)

func main() { os.Exit(command.Main("loop-record", looprecord.Main)) }
