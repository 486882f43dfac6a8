// Command loop-export sends runs as OpenTelemetry traces.
package main

import (
	"os"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/command/loopexport"
	"github.com/loopkit/loopkit/internal/gitrun"
)

// main is command.Main less the process watcher: loop-export starts no
// child, and the watcher's 124 KB would put it over its 12 MB.
func main() {
	gitrun.Unlocate()
	os.Exit(cli.Main("loop-export", loopexport.Main))
}
