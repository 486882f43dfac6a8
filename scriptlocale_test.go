package loopkit_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// locale NAME: the script's commands run under LC_ALL=NAME (language_TERRITORY.CHARSET),
// as a person's shell sets it. A locale the system lacks is built into $WORK
// with localedef (LOCPATH), which costs seconds: under -short, and where
// it cannot be built, the script is skipped.
func cmdLocale(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: locale NAME")
	}
	name := args[0]
	skip := ts.Value(scriptT{}).(testscript.T).Skip
	if !localeWorks(name, "") {
		lang, charset, ok := strings.Cut(name, ".")
		if !ok || testing.Short() {
			skip("locale " + name + " is not installed (built only without -short)")
		}
		dir := ts.MkAbs(".locale")
		ts.Check(os.MkdirAll(dir, 0o755))
		if _, err := exec.LookPath("localedef"); err != nil {
			skip("locale " + name + " is not installed, and no localedef builds it")
		}
		// localedef's warnings (a charmap's unmapped names) exit 1 with the locale made
		exec.Command("localedef", "-i", lang, "-f", charset, filepath.Join(dir, name)).Run()
		if !localeWorks(name, dir) {
			skip("locale " + name + " could not be built")
		}
		ts.Setenv("LOCPATH", dir)
	}
	ts.Setenv("LC_ALL", name)
}

// localeWorks: bash sets locale name (from locpath when set) without a warning.
func localeWorks(name, locpath string) bool {
	cmd := exec.Command("bash", "-c", ":")
	cmd.Env = append(os.Environ(), "LC_ALL="+name)
	if locpath != "" {
		cmd.Env = append(cmd.Env, "LOCPATH="+locpath)
	}
	out, err := cmd.CombinedOutput()
	return err == nil && len(out) == 0
}

// scriptT is the key of the script's testscript.T in Env.Values (setupScript).
type scriptT struct{}
