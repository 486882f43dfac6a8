// Package progress is the loop-progress command (not built yet: see its issue).
package progress

import "github.com/loopkit/loopkit/pkg/cli"

// Main is loop-progress.
func Main(env *cli.Env) error {
	return cli.Failf("loop-progress is not built yet")
}
