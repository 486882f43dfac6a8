// Command loop-tui: see 'loop-tui --help' (also run as 'loop-view tui').
package main

import (
	"os"

	"github.com/loopkit/loopkit/internal/command"
	"github.com/loopkit/loopkit/internal/command/looptui"
)

func main() { os.Exit(command.Main("loop-tui", looptui.Main)) }
