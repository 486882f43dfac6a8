// Package step is the loop-step command (not built yet: see its issue).
package step

import "github.com/loopkit/loopkit/pkg/cli"

// Main is loop-step.
func Main(env *cli.Env) error {
	return cli.Failf("loop-step is not built yet")
}
