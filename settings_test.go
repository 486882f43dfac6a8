package loopkit_test

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/command/loopclean"
	"github.com/loopkit/loopkit/internal/command/loopprogress"
	"github.com/loopkit/loopkit/internal/command/loopstep"
	"github.com/loopkit/loopkit/internal/command/loopvalidate"
	"github.com/loopkit/loopkit/internal/runconfig"
	"github.com/loopkit/loopkit/internal/runstate"
)

// commandOptions are the option structs of the commands a person may run
// alone, outside the driver.
var commandOptions = []any{loopstep.Options{}, loopvalidate.Options{}, loopprogress.Options{}, loopclean.Options{}, runstate.Writing{}}

// An option that is a run's setting (its config tag names one) shows the
// schema's default in its help: run alone, the command resolves it
// through runconfig, so a different default in its tag would lie.
func TestCommandSettingsMatchSchema(t *testing.T) {
	for _, o := range commandOptions {
		walkOptions(reflect.TypeOf(o), func(f reflect.StructField) {
			rs := runconfig.ByConfig(f.Tag.Get("config"))
			if rs == nil || f.Tag.Get("long") == "" { // no flag: no help to lie
				return
			}
			want, got := rs.Default, f.Tag.Get("default")
			if f.Type == reflect.TypeOf(cli.Duration(0)) && want != "" {
				w, _ := runconfig.ParseDuration(want)
				g, err := runconfig.ParseDuration(got)
				if err == nil && g == w {
					return
				}
			}
			if got != want && !(got == "" && want == "0") { // a zero the help leaves unsaid

				t.Errorf("%T.%s (config %s): default %q in its tag, %q in the schema", o, f.Name, f.Tag.Get("config"), got, want)
			}
		})
	}
}

func walkOptions(t reflect.Type, fn func(reflect.StructField)) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			walkOptions(f.Type, fn)
			continue
		}
		fn(f)
	}
}

// A command run alone reads a run's setting as the driver does: its
// LOOP_* variable over the config files, the seed's older key names, and
// the schema's default (loop-validate once took no timeout by default and
// ignored LOOP_VALIDATE_TIMEOUT; loop-step ignored LOOP_RETRIES).
func TestCommandResolvesSettings(t *testing.T) {
	dir := t.TempDir()
	conf := dir + "/config"
	if err := os.WriteFile(conf, []byte("claude_retries=4\nverify_timeout_sec=90\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := cli.LoadConfig("", conf)
	if err != nil {
		t.Fatal(err)
	}
	apply := func(opts any) {
		t.Helper()
		env := cli.NewEnv("x", nil, nil, nil, nil)
		p := cli.NewParser(env, opts, "")
		if _, err := p.ParseArgs(nil); err != nil {
			t.Fatal(err)
		}
		if err := cfg.Apply(env, p, opts); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("LOOP_RETRIES", "")
	t.Setenv("LOOP_VALIDATE_TIMEOUT", "")
	t.Setenv("LOOP_TIMEOUT", "")
	step := &loopstep.Options{}
	apply(step)
	if step.Retries != 4 || step.Timeout.D().String() != "30m0s" {
		t.Errorf("loop-step from the config: retries %d, timeout %s; want 4 and the schema's 30m", step.Retries, step.Timeout.D())
	}
	t.Setenv("LOOP_RETRIES", "2")
	step = &loopstep.Options{}
	apply(step)
	if step.Retries != 2 {
		t.Errorf("loop-step: retries %d, want LOOP_RETRIES' 2 over the config's 4", step.Retries)
	}
	val := &loopvalidate.Options{}
	apply(val)
	if val.Timeout.D().String() != "1m30s" {
		t.Errorf("loop-validate: timeout %s, want the config's 90 (seconds)", val.Timeout.D())
	}
	// the copy settings every writer takes (runstate.Writing): a bad
	// variable is refused as the driver refuses it, naming it
	t.Setenv("LOOP_ARTIFACT_MODE", "bogus")
	env := cli.NewEnv("x", nil, nil, nil, nil)
	w := &runstate.Writing{}
	if err := cfg.Apply(env, cli.NewParser(env, w, ""), w); err == nil || !strings.Contains(err.Error(), "LOOP_ARTIFACT_MODE") {
		t.Errorf("LOOP_ARTIFACT_MODE=bogus: %v, want an error naming it", err)
	}
	t.Setenv("LOOP_ARTIFACT_MODE", "mirror")
	w = &runstate.Writing{}
	if err := cfg.Apply(env, cli.NewParser(env, w, ""), w); err != nil || w.ArtifactMode != "mirror" {
		t.Errorf("LOOP_ARTIFACT_MODE=mirror: %q, %v", w.ArtifactMode, err)
	}
	t.Setenv("LOOP_VALIDATE_TIMEOUT", "5m")
	val = &loopvalidate.Options{}
	apply(val)
	if val.Timeout.D().String() != "5m0s" {
		t.Errorf("loop-validate: timeout %s, want LOOP_VALIDATE_TIMEOUT's 5m", val.Timeout.D())
	}
}

// An option that is a run's setting with a LOOP_* variable names that
// variable in its help, as every other variable a command reads is named
// (docs/cli.md: environment variables are written after the description):
// loop-step --timeout read LOOP_TIMEOUT, loop-validate --timeout
// LOOP_VALIDATE_TIMEOUT, and their help said nothing of it.
func TestCommandHelpNamesSettingVariables(t *testing.T) {
	for _, o := range commandOptions {
		env := cli.NewEnv("x", nil, nil, nil, nil)
		p := cli.NewParser(env, reflect.New(reflect.TypeOf(o)).Interface(), "")
		help := cli.WriteHelp(p)
		walkOptions(reflect.TypeOf(o), func(f reflect.StructField) {
			rs := runconfig.ByConfig(f.Tag.Get("config"))
			if rs == nil || rs.Env == "" || f.Tag.Get("long") == "" || f.Tag.Get("hidden") != "" {
				return
			}
			if !strings.Contains(help, "[$"+rs.Env+"]") {
				t.Errorf("%T --%s reads %s, its help does not name it:\n%s", o, f.Tag.Get("long"), rs.Env, help)
			}
		})
	}
}
