// Package settings opens the store a command works on and applies the
// config files to the command's options, the same way for every command:
// flag > environment > --config/LOOP_CONFIG file > the store's config > default.
package settings

import (
	"os"

	flags "github.com/jessevdk/go-flags"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/exitcode"
	"github.com/loopkit/loopkit/internal/store"
)

// Open resolves the store (--store, LOOP_STORE, else .loop at the workspace
// around the current directory), loads its config and the named one, and
// fills opts' config-tagged options. It returns the store and the current
// directory; it creates nothing.
func Open(env *cli.Env, p *flags.Parser, common *cli.Common, opts any) (*store.Store, string, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return nil, "", cli.Failf("current directory: %w", err)
	}
	st, err := store.Resolve(common.Store, cwd)
	if err != nil {
		return nil, "", cli.Failf("%w", err)
	}
	cfg, err := cli.LoadConfig(st.ConfigFile(), common.Config)
	if err != nil {
		return nil, "", cli.WithCode(exitcode.Usage, err)
	}
	if err := cfg.Apply(env, p, opts); err != nil {
		return nil, "", err
	}
	return st, cwd, nil
}
