package loopkit_test

import (
	"os"
	"os/signal"
	"syscall"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/command"
	"github.com/loopkit/loopkit/internal/command/loopclean"
	"github.com/loopkit/loopkit/internal/command/loopdrive"
	"github.com/loopkit/loopkit/internal/command/loopexport"
	"github.com/loopkit/loopkit/internal/command/loopprogress"
	"github.com/loopkit/loopkit/internal/command/looprecord"
	"github.com/loopkit/loopkit/internal/command/loopstep"
	"github.com/loopkit/loopkit/internal/command/loopvalidate"
	"github.com/loopkit/loopkit/internal/command/loopview"
	"github.com/loopkit/loopkit/internal/gitrun"
)

// commands are the loop-* binaries the scripts run, built into the test
// binary the way Go's own tests build `go`.
var commands = map[string]func(){
	"loop-validate": func() { os.Exit(command.Main("loop-validate", loopvalidate.Main)) },
	"loop-record":   func() { os.Exit(command.Main("loop-record", looprecord.Main)) },
	"loop-progress": func() { os.Exit(command.Main("loop-progress", loopprogress.Main)) },
	"loop-view":     func() { os.Exit(command.Main("loop-view", loopview.Main)) },
	"loop-clean":    func() { os.Exit(command.Main("loop-clean", loopclean.Main)) },
	"loop-step":     func() { os.Exit(command.Main("loop-step", loopstep.Main)) },
	"loop-export":   func() { gitrun.Unlocate(); os.Exit(cli.Main("loop-export", loopexport.Main)) },
	"loop-drive":    func() { os.Exit(command.Main(loopdrive.Name(), loopdrive.Main)) },
}

func TestMain(m *testing.M) {
	plainTempDir()
	testscript.Main(m, commands)
}

// TestScripts runs testdata/script/*.txtar. UPDATE_SCRIPTS=1 rewrites golden
// output in place.
func TestScripts(t *testing.T) {
	t.Parallel()
	defaultSignals()
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		UpdateScripts:       os.Getenv("UPDATE_SCRIPTS") == "1",
		Setup:               setupScript,
		Cmds:                scriptCmds,
		Condition:           scriptCondition,
	})
}

// defaultSignals gives the specs' children the default action of a signal
// this test was started with ignored (SIGHUP under nohup, SIGINT in a
// script's background job): a shell cannot trap a signal ignored on entry,
// so the driver's signal specs would wait for nothing. Caught here (and
// dropped, as ignored), the signal is reset to its default at exec.
func defaultSignals() {
	for _, s := range []syscall.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM, syscall.SIGPIPE} {
		if signal.Ignored(s) {
			signal.Notify(make(chan os.Signal, 1), s)
		}
	}
}
