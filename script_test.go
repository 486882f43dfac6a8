package loopkit_test

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/loopkit/loopkit/pkg/cli"
	"github.com/loopkit/loopkit/pkg/commands/clean"
	"github.com/loopkit/loopkit/pkg/commands/progress"
	"github.com/loopkit/loopkit/pkg/commands/record"
	"github.com/loopkit/loopkit/pkg/commands/step"
	"github.com/loopkit/loopkit/pkg/commands/validate"
	"github.com/loopkit/loopkit/pkg/commands/view"
)

// commands are the loop-* binaries the scripts run, built into the test
// binary the way Go's own tests build `go`.
var commands = map[string]func(){
	"loop-validate": func() { os.Exit(cli.Main("loop-validate", validate.Main)) },
	"loop-record":   func() { os.Exit(cli.Main("loop-record", record.Main)) },
	"loop-progress": func() { os.Exit(cli.Main("loop-progress", progress.Main)) },
	"loop-view":     func() { os.Exit(cli.Main("loop-view", view.Main)) },
	"loop-clean":    func() { os.Exit(cli.Main("loop-clean", clean.Main)) },
	"loop-step":     func() { os.Exit(cli.Main("loop-step", step.Main)) },
}

func TestMain(m *testing.M) {
	testscript.Main(m, commands)
}

// TestScripts runs testdata/script/*.txtar. UPDATE_SCRIPTS=1 rewrites golden
// output in place.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		UpdateScripts:       os.Getenv("UPDATE_SCRIPTS") == "1",
		Setup:               setupScript,
		Cmds:                scriptCmds,
	})
}
