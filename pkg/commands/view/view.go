// Package view is the loop-view command (not built yet: see its issue).
package view

import "github.com/loopkit/loopkit/pkg/cli"

// Main is loop-view.
func Main(env *cli.Env) error {
	return cli.Failf("loop-view is not built yet")
}
