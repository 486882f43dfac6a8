// Package clean is the loop-clean command (not built yet: see its issue).
package clean

import "github.com/loopkit/loopkit/pkg/cli"

// Main is loop-clean.
func Main(env *cli.Env) error {
	return cli.Failf("loop-clean is not built yet")
}
