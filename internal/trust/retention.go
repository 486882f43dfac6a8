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
// driver's copy (read is empty) was checked when its run started.
func Retention(env *cli.Env, p *flags.Parser, cfg cli.Config, read map[string][]byte, opts any) error {
	checked := false
	for _, key := range CleanKeys {
		s, ok := cfg[key]
		if !ok || !cli.Reads(opts, key) {
			continue
		}
		data, ok := read[s.File]
		if n, err := strconv.ParseInt(s.Value, 10, 64); !ok || err != nil || n <= 0 {
			continue // none to obey, or a bad value Apply refuses
		}
		accepted, err := Accepted(data)
		if err != nil {
			return cli.Failf("config %s: the record of accepted configs: %w", s.File, err)
		}
		if accepted {
			continue
		}
		// a value out of range is refused as without this check
		if !checked {
			if err := cfg.Check(p, opts); err != nil {
				return err
			}
			checked = true
		}
		env.Log.Warn(fmt.Sprintf("%s:%d: %s=%q not obeyed, as the file was never accepted as it is (the agent can write it): it deletes nothing; accept it with '%s trust %s'",
			s.File, s.Line, key, s.Value, driverargs.Prog(), s.File))
		s.Value = "0"
		cfg[key] = s
	}
	return nil
}
