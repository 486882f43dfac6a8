// Command loop-record appends iterations to a run and manages runs.
package main

import (
	"os"

	"github.com/loopkit/loopkit/pkg/cli"
	"github.com/loopkit/loopkit/pkg/commands/record"
)

func main() { os.Exit(cli.Main("loop-record", record.Main)) }
