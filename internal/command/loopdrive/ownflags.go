package loopdrive

// The driver's own flags (--config, --trust-config), read before the
// settings, and the config file a resumed run started with.

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/driverargs"
	"github.com/loopkit/loopkit/internal/exitcode"
	"github.com/loopkit/loopkit/internal/store"
)

// driverFlag is the value of one of the driver's own flags (before the
// agent's argv), the last one given, as for every flag: "1" for a switch
// that is there; given says whether it is there at all.
func driverFlag(args []string, name string, takesValue bool) (val string, given bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return val, given
		case !takesValue && a == name:
			val, given = "1", true
		case takesValue && a == name:
			val, given = "", true
			if i+1 < len(args) {
				i++
				val = args[i]
			}
		case takesValue && strings.HasPrefix(a, name+"="):
			val, given = a[len(name)+1:], true
		}
	}
	return val, given
}

// trustFlag says whether the driver's own flags hold --trust-config.
func trustFlag(args []string) bool {
	_, given := driverFlag(args, "--trust-config", false)
	return given
}

// usageLine says a command line the driver cannot read in one line (the
// help would hide the message that matters), then has it exit 2.
func usageLine(env *cli.Env, mode string, err error) error {
	sub := map[string]string{"--new": "run", "--resume": "resume"}[mode]
	fmt.Fprintf(env.Stderr, "loop: %v (see %s %s --help)\n", err, driverargs.Prog(), sub)
	emit(env, "exit", fmt.Sprint(exitcode.Usage))
	return cli.Silent(exitcode.Usage)
}

// withoutConfig drops --config FILE from the driver's own flags: it names
// a source of settings, not a setting.
func withoutConfig(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(out, args[i:]...)
		case a == "--config" && i+1 < len(args):
			i++
		case strings.HasPrefix(a, "--config="):
		default:
			out = append(out, a)
		}
	}
	return out
}

// startedConfig is the --config/LOOP_CONFIG file the run a resume line
// names started with ("" for none, or for a line or run said wrong later),
// or an error when it is gone.
func startedConfig(st *store.Store, args []string) (string, error) {
	r, err := driverargs.ParseResume(args, driverargs.Sources{})
	if err != nil || r.Run == "" || store.ValidRunID(r.Run) != nil {
		return "", nil
	}
	run, err := st.ReadRun(r.Run)
	if err != nil || run.Settings.ConfigFile == "" {
		return "", nil
	}
	f := run.Settings.ConfigFile
	if _, err := os.Lstat(f); errors.Is(err, os.ErrNotExist) {
		return "", &cli.ExitError{Code: exitcode.Usage, Err: fmt.Errorf("run %s started with config %s, which is gone", r.Run, f),
			Hint: fmt.Sprintf("put it back, or name the config to read with '%s resume %s --config FILE'", driverargs.Prog(), r.Run)}
	}
	return f, nil
}
