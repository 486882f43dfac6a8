// bench-run measures commands for make bench (scripts/bench.d): each in
// turn for N rounds, wall and CPU time (user+sys, descendants included)
// and peak RSS, printed as JSON. Not a loopkit command: it is built by the
// benchmark scripts only.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/loopkit/loopkit/internal/benchrun"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench-run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	rounds := fs.Int("r", 5, "alternated rounds")
	warmup := fs.Int("w", 0, "untimed rounds first")
	prepare := fs.String("prepare", "", "command run untimed before each timed run")
	dir := fs.String("dir", "", "working directory of the commands")
	out := fs.String("json", "", "write the report here (default: stdout)")
	timeout := fs.Duration("timeout", 10*time.Minute, "bound of one run")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: bench-run [-r N] [-w N] [--prepare CMD] [--dir D] [--json FILE] CMD...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	cfg := benchrun.Config{Rounds: *rounds, Warmup: *warmup, Dir: *dir, Timeout: *timeout}
	for _, c := range fs.Args() {
		w, err := benchrun.Words(c)
		if err != nil {
			fmt.Fprintln(stderr, "bench-run:", err)
			return 2
		}
		cfg.Commands = append(cfg.Commands, w)
	}
	if *prepare != "" {
		w, err := benchrun.Words(*prepare)
		if err != nil {
			fmt.Fprintln(stderr, "bench-run: --prepare:", err)
			return 2
		}
		cfg.Prepare = w
	}
	rep, err := benchrun.Run(context.Background(), cfg)
	if err != nil {
		fmt.Fprintln(stderr, "bench-run:", err)
		return 1
	}
	b, _ := json.MarshalIndent(rep, "", " ")
	b = append(b, '\n')
	if *out == "" {
		_, err = stdout.Write(b)
	} else {
		err = os.WriteFile(*out, b, 0o644)
	}
	if err != nil {
		fmt.Fprintln(stderr, "bench-run:", err)
		return 1
	}
	return 0
}
