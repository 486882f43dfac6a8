package agent

import (
	"path/filepath"
	"slices"
	"strings"
)

// modelFlags are the agent CLIs that take a model flag, with the flag and
// the subcommand it goes after ("" for right after the program): claude
// --model, codex exec -m, gemini -m, opencode run -m provider/model.
var modelFlags = map[string][2]string{
	"claude":   {"--model", ""},
	"codex":    {"-m", "exec"},
	"gemini":   {"-m", ""},
	"opencode": {"-m", "run"},
}

// WithModel is argv with the agent's model flag set to model (config
// model, seed 003), and whether the agent takes one. An argv that already
// names a model keeps it: the command line given is more specific than
// the config.
func WithModel(argv []string, model string) ([]string, bool) {
	if len(argv) == 0 || model == "" {
		return argv, false
	}
	mf, ok := modelFlags[filepath.Base(argv[0])]
	if !ok {
		return argv, false
	}
	for _, a := range argv[1:] {
		if a == "-m" || a == "--model" || strings.HasPrefix(a, "--model=") || strings.HasPrefix(a, "-m=") {
			return argv, true
		}
	}
	at := 1
	if mf[1] != "" {
		i := slices.Index(argv, mf[1])
		if i < 0 {
			return argv, false
		}
		at = i + 1
	}
	out := append(slices.Clone(argv[:at]), mf[0], model)
	return append(out, argv[at:]...), true
}
