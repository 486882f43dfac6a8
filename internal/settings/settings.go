// Package settings opens the store a command works on and applies the
// config files to the command's options, the same way for every command:
// flag > environment > --config/LOOP_CONFIG file > the store's config > default.
package settings

import (
	"errors"
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
	return OpenChecked(env, p, common, opts, nil)
}

// Check looks at the config a command read, before it fills the options
// opts: read holds each config file's content by name, none when the
// config is the driver's copy of its run. It may set values aside.
type Check func(env *cli.Env, p *flags.Parser, cfg cli.Config, read map[string][]byte, opts any) error

// OpenChecked is Open with check run on the config first (trust.Retention).
func OpenChecked(env *cli.Env, p *flags.Parser, common *cli.Common, opts any, check Check) (*store.Store, string, error) {
	cwd, err := cli.Getwd()
	if err != nil {
		return nil, "", err
	}
	st, err := store.Resolve(common.Store, cwd)
	if err != nil {
		return nil, "", cli.Failf("%w", err)
	}
	cfg, read, err := cli.LoadConfigRead(st.ConfigFile(), common.Config)
	if err != nil {
		return nil, "", cli.WithCode(exitcode.Usage, err)
	}
	if check != nil {
		if err := check(env, p, cfg, read, opts); err != nil {
			return nil, "", err
		}
	}
	if err := cfg.Apply(env, p, opts); err != nil {
		return nil, "", err
	}
	return st, cwd, nil
}

// Named refuses a store named by --store or LOOP_STORE that is not there,
// for a command that only reads one: it would read a mistyped path as an
// empty store and say nothing. A follower waits for it instead.
func Named(common *cli.Common, st *store.Store) error {
	if common.Store == "" {
		return nil // the default store: no runs yet is not a mistake
	}
	if _, err := os.Stat(st.Root); errors.Is(err, os.ErrNotExist) {
		return cli.Usagef("no store at %s (--store or LOOP_STORE): check the path", st.Root)
	}
	return nil
}
