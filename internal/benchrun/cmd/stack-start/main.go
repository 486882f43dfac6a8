// Command stack-start is the start-up benchmark's second baseline: a
// program that links only the flag library every loop-* command is built
// on (go-flags), and does what `--version` does with it (parse the flags,
// print, exit). Not shipped.
package main

import (
	"fmt"
	"os"

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
	fmt.Fprintln(os.Stderr, "no --version")
}
