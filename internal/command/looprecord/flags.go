package looprecord

import (
	"fmt"
	"slices"

	flags "github.com/jessevdk/go-flags"

	"github.com/loopkit/loopkit/internal/cli"
)

// Each of these flags picks what loop-record does; "record" (an iteration
// on stdin) and "update" (--setting, --pid, --pgid alone) are the others.
var modeFlags = []string{"new-run", "status", "attempt", "repair", "hypotheses", "snapshot", "rate-limit"}

// companions are the modes each other flag means something in. A flag
// given where it means nothing is a usage error, never silently ignored.
var companions = map[string][]string{
	"name":        {"new-run"},
	"setting":     {"new-run", "update"},
	"pid":         {"update"},
	"pgid":        {"update"},
	"message":     {"status", "finish"},
	"no-clean":    {"status", "finish"},
	"iteration":   {"record"},
	"exit-status": {"record"},
	"finish":      {"record"},
	"summary":     {"record"},
	"kind":        {"attempt"},
}

// hints say what the user likely meant, by "flag mode" pair.
var hints = map[string]string{
	"new-run status":     "create the run first (loop-record --new-run --run ID), then set its status (loop-record --run ID --status STATUS)",
	"iteration status":   "did you mean --finish? it records the iteration on stdin, then ends the run by its exit code",
	"exit-status status": "did you mean --finish? it records the iteration on stdin, then ends the run by its exit code",
	"message record":     "did you mean --finish --message TEXT, or --status STATUS --message TEXT?",
	"no-clean record":    "did you mean --finish --no-clean?",
	"name record":        "did you mean --new-run --name NAME?",
	"name status":        "the name is given when the run is created: --new-run --name NAME",
	"kind record":        "did you mean --attempt --kind KIND?",
}

// checkFlags refuses flag combinations where a flag would be ignored or two
// flags ask for different things (exit 2, naming both flags).
func checkFlags(env *cli.Env, p *flags.Parser) (string, error) {
	given := func(name string) bool {
		o := p.FindOptionByLongName(name)
		return o != nil && o.IsSet() && !o.IsSetDefault()
	}
	mode := ""
	for _, m := range modeFlags {
		if !given(m) {
			continue
		}
		if mode != "" {
			return "", conflict(env, m, mode, fmt.Sprintf("--%s and --%s cannot be used together", mode, m))
		}
		mode = m
	}
	if mode == "" {
		mode = "record"
		if given("setting") || given("pid") || given("pgid") {
			mode = "update"
		}
	}
	effective := mode
	for _, f := range []string{"name", "setting", "pid", "pgid", "iteration", "exit-status", "finish", "summary", "message", "no-clean", "kind"} {
		if !given(f) {
			continue
		}
		if mode == "record" && given("finish") && slices.Contains(companions[f], "finish") {
			continue
		}
		if slices.Contains(companions[f], effective) {
			continue
		}
		with := "--" + mode
		if mode == "record" {
			with = "an iteration on stdin"
		}
		if mode == "update" {
			with = "--setting, --pid or --pgid alone"
		}
		return "", conflict(env, f, mode, fmt.Sprintf("--%s has no effect with %s", f, with))
	}
	if given("snapshot") && p.FindOptionByLongName("snapshot").Value() == "" {
		return "", env.UsageError("--snapshot needs a milestone name (e.g. --snapshot start)")
	}
	return mode, nil
}

func conflict(env *cli.Env, flag, mode, msg string) error {
	err := env.UsageError("%s", msg)
	for _, k := range []string{flag + " " + mode, mode + " " + flag} {
		if h, ok := hints[k]; ok {
			err.(*cli.ExitError).Hint = h
		}
	}
	return err
}
