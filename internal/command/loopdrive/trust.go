package loopdrive

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/driverargs"
	"github.com/loopkit/loopkit/internal/exitcode"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/trust"
)

// configFiles are the driver's config files, later ones winning: the
// store's and LOOP_CONFIG's (which must exist when named).
func configFiles(st *store.Store) [][2]string {
	fs := [][2]string{{st.ConfigFile(), ""}}
	if named := os.Getenv("LOOP_CONFIG"); named != "" {
		fs = append(fs, [2]string{named, "must"})
	}
	return fs
}

// loadConfig reads the driver's config files once each, and with check
// refuses one that names commands to run whose content the person never
// accepted (exit 2, the commands shown); accept records them instead.
// It also gives each file's content by name (trust.Resumed).
func loadConfig(env *cli.Env, st *store.Store, check, accept bool) (cli.Config, map[string][]byte, error) {
	cfg, read := cli.Config{}, map[string][]byte{}
	for _, f := range configFiles(st) {
		data, err := trust.Read(f[0])
		if errors.Is(err, fs.ErrNotExist) && f[1] == "" {
			continue
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, cli.Usagef("config %s (--config or LOOP_CONFIG): no such file", f[0])
		}
		if err != nil {
			return nil, nil, cli.WithCode(exitcode.Usage, err) // trust.Read's, naming the config
		}
		if err := cli.ParseConfig(f[0], data, cfg); err != nil {
			return nil, nil, cli.WithCode(exitcode.Usage, err)
		}
		read[f[0]] = data
		if check {
			if err := trusted(env, f[0], data, accept); err != nil {
				return nil, nil, err
			}
		}
	}
	return cfg, read, nil
}

// trusted lets a config file's commands run only when its content was
// accepted; accept accepts it now.
func trusted(env *cli.Env, path string, data []byte, accept bool) error {
	cs, err := trust.Commands(path, data)
	if err != nil {
		return err
	}
	ok, seen, err := trust.Check(path, data)
	if err != nil {
		return cli.Failf("config %s: the record of accepted configs: %w", path, err)
	}
	if ok || len(cs) == 0 && !seen { // one naming nothing is obeyed, unless the person accepted it once
		return nil
	}
	if accept {
		if err := trust.AcceptData(path, data); err != nil {
			return cli.Failf("config %s: %w", path, err)
		}
		env.Log.Info(fmt.Sprintf("accepted %s: its %s from now on", path, obeyed(cs)))
		return nil
	}
	show(env, path, cs)
	if len(cs) == 0 {
		return cli.Usagef("config changed since it was accepted: %s names no command now (one removed may have been a check, a reviewer or a hook): "+
			"read it, then accept with '%s run --trust-config ...' or '%s trust'", path, driverargs.Prog(), driverargs.Prog())
	}
	return cli.Usagef("%s names %s and was never accepted as it is (shown above): "+
		"read them, then accept with '%s run --trust-config ...' or '%s trust'", path, named(cs), driverargs.Prog(), driverargs.Prog())
}

// show lists what a config file would run, quoted as the file may hold
// any byte (a terminal escape written by the agent, say).
func show(env *cli.Env, path string, cs []trust.Command) {
	for _, c := range cs {
		fmt.Fprintf(env.Stderr, "  %s:%d: %s=%q\n", path, c.Line, c.Key, c.Value)
	}
}

const trustHelp = `usage: %[1]s trust [FILE...]

Examples:
  $ %[1]s trust             # the store's config, and LOOP_CONFIG's
  $ %[1]s trust ci.conf

Shows the commands each config file names (verify_cmds, final_verify_cmds,
reviewer, run_naming_model, on_event), where it puts a worktree
(worktree_path_template) and what a run's clean deletes (keep_last,
keep_days), and accepts the file as it is now: '%[1]s run' obeys a
config that names them, or one accepted before, only once that content
was accepted. Exit status: 0 accepted; 1 a file cannot be read; 2 a bad
flag, a file that is no config, or no config file to accept.
`

// acceptConfig is `loop trust [FILE...]`: shows what each config file
// (default: the driver's) would run, and accepts it as it is now.
func acceptConfig(env *cli.Env, args []string) error {
	prog := driverargs.Prog()
	for _, a := range args {
		switch {
		case a == "-h" || a == "--help":
			_, err := fmt.Fprintf(env.Stdout, trustHelp, prog)
			return err
		case len(a) > 1 && a[0] == '-': // a file so named: ./-f
			fmt.Fprintf(env.Stderr, "loop: unknown flag %s (see %s trust --help)\n", a, prog)
			return cli.Silent(exitcode.Usage)
		}
	}
	files := slices.Clone(args)
	if len(files) == 0 {
		cwd, err := cli.Getwd()
		if err != nil {
			return err
		}
		st, err := store.Resolve(os.Getenv("LOOP_STORE"), cwd)
		if err != nil {
			return cli.Failf("%w", err)
		}
		for _, f := range configFiles(st) {
			if _, err := os.Lstat(f[0]); err == nil || f[1] != "" {
				files = append(files, f[0])
			}
		}
	}
	if len(files) == 0 {
		return cli.Usagef("no config file to accept (the store has none and LOOP_CONFIG is unset)")
	}
	for _, f := range files {
		data, err := trust.Read(f)
		if err != nil {
			return cli.Failf("%w", err)
		}
		cs, err := trust.Commands(f, data)
		if err != nil {
			return cli.WithCode(exitcode.Usage, err)
		}
		show(env, f, cs)
		if err := trust.AcceptData(f, data); err != nil {
			return cli.Failf("config %s: %w", f, err)
		}
		fmt.Fprintf(env.Stdout, "accepted %s (%s)\n", f, count(cs))
	}
	return nil
}

// kinds counts cs by kind (trust.Command.Kind), in the order commands,
// worktree paths, retention settings.
func kinds(cs []trust.Command) (order []string, n map[string]int) {
	n = map[string]int{}
	for _, k := range []string{"command", "worktree path", "retention setting"} {
		for _, c := range cs {
			if c.Kind() == k {
				n[k]++
			}
		}
		if n[k] > 0 {
			order = append(order, k)
		}
	}
	return order, n
}

// count is "1 command", "2 commands and 1 worktree path", "no command".
func count(cs []trust.Command) string {
	order, n := kinds(cs)
	if len(order) == 0 {
		return "no command"
	}
	parts := make([]string, len(order))
	for i, k := range order {
		parts[i] = plural(n[k], k)
	}
	return strings.Join(parts, " and ")
}

// obeyed is what of cs is obeyed once accepted: "1 command run", "its
// worktree path used"; "settings used" for a file naming none (Check).
func obeyed(cs []trust.Command) string {
	order, n := kinds(cs)
	if len(order) == 0 {
		return "settings used"
	}
	parts := make([]string, len(order))
	for i, k := range order {
		if k == "command" {
			parts[i] = plural(n[k], k) + " run"
		} else {
			parts[i] = noun(n[k], k) + " used"
		}
	}
	return strings.Join(parts, " and its ")
}

// named is what the refusal says cs names.
func named(cs []trust.Command) string {
	order, _ := kinds(cs)
	words := map[string]string{
		"command":           "commands to run",
		"worktree path":     "where its worktree goes (worktree_path_template)",
		"retention setting": "what the clean at a run's end deletes (keep_last, keep_days)",
	}
	parts := make([]string, len(order))
	for i, k := range order {
		parts[i] = words[k]
	}
	return strings.Join(parts, " and ")
}

func plural(n int, what string) string { return fmt.Sprintf("%d %s", n, noun(n, what)) }

func noun(n int, what string) string {
	if n == 1 {
		return what
	}
	return what + "s"
}
