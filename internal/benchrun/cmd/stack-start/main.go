// Command stack-start is the start-up benchmark's second baseline: a
// program that links only the logging and flag libraries every loop-*
// command is built on, and does what `--version` does with them (parse
// the flags, print, exit; the logger, as the commands' is, made only when
// used). Not shipped.
package main

import (
	"fmt"
	"os"

	"github.com/charmbracelet/log"
	flags "github.com/jessevdk/go-flags"
)

func main() {
	var opts struct {
		Version bool `long:"version" description:"print the version and exit"`
	}
	if _, err := flags.NewParser(&opts, flags.Default).Parse(); err != nil {
		os.Exit(2)
	}
	if opts.Version {
		fmt.Println("stack-start 1")
		return
	}
	log.New(os.Stderr).Info("no --version")
}
