package trust

import (
	"fmt"
	"strconv"

	flags "github.com/jessevdk/go-flags"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/driverargs"
)

// Retention sets to 0 (no limit) each keep_last or keep_days a
// config file gives whose content the person never accepted: the agent
// can write .loop/config, and its keep_last=1 would have loop-clean, or a
// pipeline's loop-record, delete the person's runs. Falling back to the
// default instead could delete runs the file's own value keeps. The
// driver's copy (read is empty) was checked when its run started or
// resumed (Resumed).
func Retention(env *cli.Env, p *flags.Parser, cfg cli.Config, read map[string][]byte, opts any) error {
	var keys []string
	for _, key := range CleanKeys {
		if cli.Reads(opts, key) {
			keys = append(keys, key)
		}
	}
	drop, err := unaccepted(cfg, read, keys)
	if err != nil || len(drop) == 0 {
		return err
	}
	// a value out of range is refused as without this check
	if err := cfg.Check(p, opts); err != nil {
		return err
	}
	dropRetention(env, cfg, drop)
	return nil
}

// Resumed is Retention for the config a resume reads, already checked:
// a resume asks for no acceptance, and the agent of the stuck or paused
// run may have written keep_last=1 into .loop/config, which the clean at
// the resumed run's end would have obeyed.
func Resumed(env *cli.Env, cfg cli.Config, read map[string][]byte) error {
	drop, err := unaccepted(cfg, read, CleanKeys)
	if err == nil {
		dropRetention(env, cfg, drop)
	}
	return err
}

// unaccepted are those of keys that cfg sets to a limit from a file (its
// content in read) never accepted.
func unaccepted(cfg cli.Config, read map[string][]byte, keys []string) ([]string, error) {
	var drop []string
	for _, key := range keys {
		s, ok := cfg[key]
		if !ok {
			continue
		}
		data, ok := read[s.File]
		if n, err := strconv.ParseInt(s.Value, 10, 64); !ok || err != nil || n <= 0 {
			continue // none to obey, or a bad value Apply refuses
		}
		accepted, err := Accepted(data)
		if err != nil {
			return nil, cli.Failf("config %s: the record of accepted configs: %w", s.File, err)
		}
		if !accepted {
			drop = append(drop, key)
		}
	}
	return drop, nil
}

// dropRetention sets each of keys to 0 in cfg, saying so.
func dropRetention(env *cli.Env, cfg cli.Config, keys []string) {
	for _, key := range keys {
		s := cfg[key]
		env.Log.Warn(fmt.Sprintf("%s:%d: %s=%q not obeyed, as the file was never accepted as it is (the agent can write it): it deletes nothing; accept it with '%s trust %s'",
			s.File, s.Line, key, s.Value, driverargs.Prog(), s.File))
		s.Value = "0"
		cfg[key] = s
	}
}
