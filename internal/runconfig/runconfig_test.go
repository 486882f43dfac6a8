package runconfig

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// seed003Keys are the config keys seed 003 lists: every one is a setting.
var seed003Keys = strings.Fields(`specs_dir plans_dir log_dir model iterations
	completion_mode reviewer verify_cmds verify_timeout_sec claude_timeout_sec
	claude_retries claude_retry_backoff_sec artifact_mode global_log_dir
	run_naming_mode run_naming_model base_branch run_branch_prefix
	merge_target_branch merge_strategy worktree_path_template max_concurrency
	max_runs_per_workspace queue_policy`)

func TestSeedKeysKnown(t *testing.T) {
	if len(seed003Keys) != 24 {
		t.Fatalf("%d seed keys", len(seed003Keys))
	}
	for _, k := range seed003Keys {
		if f := ByConfig(k); f == nil || f.Config != k {
			t.Errorf("seed 003's %s is not a setting's config key", k)
		}
	}
}

// TestEveryConfigTagKnown: a config key any command reads (a `config`
// tag in its options) is known, so it is never warned about; and every
// key of Tools is read by some command. (loop-step once warned
// "unknown config key idle_timeout" about a key it read itself.)
func TestEveryConfigTagKnown(t *testing.T) {
	tag := regexp.MustCompile("config:\"([a-z_0-9]+)\"")
	rangeTag := regexp.MustCompile("range:\"([^\"]*)\"")
	read := map[string]bool{}
	ranges := map[string]string{} // Tools' key: its range tag
	who := map[string]string{}    // Tools' key: its for tag, the flags docs/cli.md gives
	for f := range reflect.TypeFor[Tools]().Fields() {
		ranges[f.Tag.Get("config")] = f.Tag.Get("range")
		who[f.Tag.Get("config")] = f.Tag.Get("for")
		if f.Tag.Get("for") == "" {
			t.Errorf("Tools.%s has no for tag: docs/cli.md would not say who reads it", f.Name)
		}
	}
	longTag := regexp.MustCompile("long:\"([^\"]*)\"")
	err := filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && (d.Name() == "runconfig" || d.Name() == "cli") { // the tag's owner and its reader
			return filepath.SkipDir
		}
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return err
		}
		data, err := os.ReadFile(p)
		for _, m := range tag.FindAllSubmatch(data, -1) {
			read[string(m[1])] = true
			if !Known(string(m[1])) {
				t.Errorf("%s reads config key %s, which runconfig does not know", p, m[1])
			}
		}
		// a command's range for a key of Tools is the one the driver
		// checks at start (cli.Config.Tools)
		for _, line := range bytes.Split(data, []byte("\n")) {
			m := tag.FindSubmatch(line)
			if m == nil {
				continue
			}
			want, isTool := ranges[string(m[1])]
			if !isTool {
				continue
			}
			got := ""
			if r := rangeTag.FindSubmatch(line); r != nil {
				got = string(r[1])
			}
			if got != want {
				t.Errorf("%s reads %s in range %q, Tools checks %q", p, m[1], got, want)
			}
			// docs/cli.md names the flag a key stands for
			if l := longTag.FindSubmatch(line); l != nil && !strings.Contains(who[string(m[1])]+" ", "--"+string(l[1])+" ") &&
				!strings.Contains(who[string(m[1])]+",", "--"+string(l[1])+",") {
				t.Errorf("%s reads %s as --%s, Tools' for tag says %q", p, m[1], l[1], who[string(m[1])])
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for k := range table().tools {
		if !read[k] {
			t.Errorf("Tools names %s, which no command reads", k)
		}
	}
	if !Known("idle_timeout") || !Known("max_iterations") || !Known("merge_target") || Known("bogus") {
		t.Error("Known is wrong about idle_timeout, max_iterations, merge_target or bogus")
	}
}

// TestSchema: keys, flags and config keys are unique; every default reads;
// every help line fits the help's column.
func TestSchema(t *testing.T) {
	keys, flags, configs := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, f := range Fields() {
		if f.Key == "" || keys[f.Key] || f.Flag != "" && flags[f.Flag] {
			t.Errorf("setting %+v: empty or repeated key or flag", f)
		}
		keys[f.Key], flags[f.Flag] = true, true
		for _, c := range append([]string{f.Config}, f.Aliases...) {
			if c != "" && configs[c] {
				t.Errorf("config key %s names two settings", c)
			}
			configs[c] = true
		}
		if f.State && (f.Flag != "" || f.Config != "" || f.Env != "") {
			t.Errorf("state %s has a source", f.Key)
		}
		var s Settings
		if err := f.set(&s, f.Default); f.Default != "" && err != nil {
			t.Errorf("%s default: %v", f.Key, err)
		}
	}
}

// tags is eachTag's pairs as a map.
func tags(tag reflect.StructTag) map[string]string {
	m := map[string]string{}
	eachTag(tag, func(k, v string) { m[k] = v })
	return m
}

// TestTags: the table's one-pass tag reader reads what reflect's does.
func TestTags(t *testing.T) {
	for _, typ := range []reflect.Type{reflect.TypeFor[Settings](), reflect.TypeFor[Tools]()} {
		for i := 0; i < typ.NumField(); i++ {
			tag := typ.Field(i).Tag
			got := tags(tag)
			for _, k := range []string{"json", "flag", "arg", "env", "config", "alias", "default", "range", "choice", "check", "help", "note", "state", "absent", "nodash", "path"} {
				if want, _ := tag.Lookup(k); got[k] != want {
					t.Errorf("%s tag %s: read %q, reflect reads %q", typ.Field(i).Name, k, got[k], want)
				}
			}
		}
	}
	if got := tags(`a:"x\"y" b:"2"`); got["a"] != `x"y` || got["b"] != "2" {
		t.Errorf("escaped quote: %q", got)
	}
}

// TestResolveKeys: a setting resolved alone (Sources.Keys: a command's
// flag) is what resolving them all gives it, its default included.
func TestResolveKeys(t *testing.T) {
	env := map[string]string{"LOOP_TIMEOUT": "5m"}
	src := Sources{Getenv: func(k string) string { return env[k] },
		Config: map[string]ConfigValue{"max_iterations": {Value: "4"}, "completion_marker": {Value: "DONE"}}}
	all, err := Resolve(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range Fields() {
		if f.State {
			continue
		}
		one := src
		one.Keys = []string{f.Key}
		got, err := Resolve(one)
		if err != nil {
			t.Fatalf("%s: %v", f.Key, err)
		}
		if got.Get(f.Key) != all.Get(f.Key) {
			t.Errorf("%s alone: %q, with the rest: %q", f.Key, got.Get(f.Key), all.Get(f.Key))
		}
	}
}

func TestResolve(t *testing.T) {
	env := map[string]string{"LOOP_TIMEOUT": "5m"}
	src := Sources{
		Flags:  map[string][]string{"max_cost": {"2", "3"}, "on_event": {"a\nb", "c"}},
		Getenv: func(k string) string { return env[k] },
		Config: map[string]ConfigValue{"claude_timeout_sec": {Value: "600"}, "max_iterations": {Value: "4"},
			"merge_target_branch": {Value: "agent/x"}, "merge_target": {Value: "old"}, "verify_cmds": {Value: "make"},
			"model": {Value: "opus"}, "log_dir": {Value: "logs/loop"}, "final_verify_cmds": {Value: `["a","b"]`}},
	}
	s, err := Resolve(src)
	if err != nil {
		t.Fatal(err)
	}
	if s.MaxCost != 3 || s.Timeout.D() != 5*time.Minute || s.MaxIterations != 4 || s.MergeTarget != "agent/x" ||
		s.Validate != "make" || s.Model != "opus" || s.LogDir != "logs/loop" || !slices.Equal(s.FinalVerify, []string{"a", "b"}) ||
		!slices.Equal(s.OnEvent, []string{"a\nb", "c"}) || s.ValidateTimeout.D() != 10*time.Minute || s.CompletionMode != "trailing" {
		t.Errorf("resolved %+v", s)
	}
	for _, tc := range []struct {
		src  Sources
		want string
	}{
		{Sources{Flags: map[string][]string{"max_wait": {"5x"}}}, `--max-wait must be a duration like 90s, 5m or 3600 (seconds), got "5x"`},
		{Sources{Getenv: func(k string) string { return map[string]string{"LOOP_VALIDATE_TIMEOUT": "1h5"}[k] }}, `LOOP_VALIDATE_TIMEOUT must be a duration`},
		{Sources{Config: map[string]ConfigValue{"iterations": {Value: "0", Where: "c:3"}}}, `c:3: iterations must be a whole number from 1 to 1000000, got "0"`},
		{Sources{Config: map[string]ConfigValue{"queue_policy": {Value: "lifo", Where: "c:1"}}}, `c:1: queue_policy must be fifo or newest_first, got "lifo"`},
		{Sources{Flags: map[string][]string{"hook_timeout": {"0"}}}, `--hook-timeout must be a duration above 0`},
		{Sources{Flags: map[string][]string{"max_cost": {"NaN"}}}, `--max-cost must be a number from 0 to 1e9`},
		{Sources{Config: map[string]ConfigValue{"final_verify_cmds": {Value: `["a", ""]`, Where: "c:2"}}}, `c:2: final_verify_cmds must be one command, or a JSON list of them`},
		{Sources{Config: map[string]ConfigValue{"final_verify_cmds": {Value: `[1]`, Where: "c:2"}}}, `c:2: final_verify_cmds must be one command`},
		// run.json (JSON) would keep these changed: the run then runs
		// another validation, hook or model than the one given
		{Sources{Flags: map[string][]string{"validate": {"test -f t\xff.md"}}}, `--validate must be UTF-8 text, got "test -f t\xff.md"`},
		{Sources{Flags: map[string][]string{"on_event": {"ok", "echo \xff"}}}, `--on-event must be UTF-8 text`},
		{Sources{Getenv: func(k string) string { return map[string]string{"LOOP_MODEL": "\xfe"}[k] }}, `LOOP_MODEL must be UTF-8 text`},
		// the agent writes the store's config: a model of "--yolo" went to
		// gemini as -m --yolo, which its parser reads as two flags
		{Sources{Config: map[string]ConfigValue{"model": {Value: "--yolo", Where: "c:4"}}}, `c:4: model must not start with '-' (it is given to the agent as a flag's value), got "--yolo"`},
		// a config file is no shell: "~/loops" made a folder named ~ in the
		// workspace (which `rm -rf ~` then "removes")
		{Sources{Config: map[string]ConfigValue{"global_log_dir": {Value: "~/loops", Where: "c:5"}}}, `c:5: global_log_dir "~/loops": nothing expands ~ here (it would name a folder ~): give the full path`},
		{Sources{Getenv: func(k string) string { return map[string]string{"LOOP_LOG_DIR": "~"}[k] }}, `LOOP_LOG_DIR "~": nothing expands ~ here`},
		{Sources{Config: map[string]ConfigValue{"worktree_path_template": {Value: "~/wt/{{ repo }}", Where: "c:6"}}}, `c:6: worktree_path_template "~/wt/{{ repo }}": nothing expands ~ here`},
	} {
		if _, err := Resolve(tc.src); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Resolve: %v, want %q", err, tc.want)
		}
	}
}

func TestSuggest(t *testing.T) {
	for in, want := range map[string]string{"iteration": "iterations", "verify_cmd": "verify_cmds",
		"claude_timeout": "claude_timeout_sec", "merge_target_brnch": "merge_target_branch", "colour": ""} {
		if got := Suggest(in); got != want {
			t.Errorf("Suggest(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestJSON: a driver's run is stored typed and whole (an explicit 0 is not
// the default); the text map of older runs still reads; a bad value keeps
// its default and is named.
func TestJSON(t *testing.T) {
	s := Defaults()
	s.Agent, s.Timeout, s.MaxCost, s.OnEvent = []string{"claude", "-p"}, 0, 1.5, []string{"a"}
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"timeout":"0"`, `"max_iterations":10`, `"max_cost":1.5`, `"on_event":["a"]`, `"agent":["claude","-p"]`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("%s lacks %s", data, want)
		}
	}
	var back Settings
	if err := json.Unmarshal(data, &back); err != nil || back.Timeout != 0 || back.MaxIterations != 10 || back.MaxCost != 1.5 {
		t.Errorf("read back %+v, %v", back, err)
	}
	old := `{"max_iterations":"4","timeout":"90","agent":"[\"codex\",\"exec\"]","final_verify":"[\"a\"]",
		"on_event":"x\ny","worktree":"1","driven_ms":"1200","max_wait":"soon","unknown":"kept out"}`
	var o Settings
	if err := json.Unmarshal([]byte(old), &o); err != nil {
		t.Fatal(err)
	}
	if o.MaxIterations != 4 || o.Timeout.D() != 90*time.Second || !slices.Equal(o.Agent, []string{"codex", "exec"}) ||
		!slices.Equal(o.FinalVerify, []string{"a"}) || !slices.Equal(o.OnEvent, []string{"x", "y"}) || !o.Worktree ||
		o.DrivenMS != 1200 || o.MaxWait.D() != 6*time.Hour || !slices.Equal(o.Bad(), []string{"max_wait"}) {
		t.Errorf("old run read as %+v", o)
	}
	if data, _ := json.Marshal(Settings{MaxIterations: 3}); string(data) != `{"max_iterations":3}` {
		t.Errorf("a run loop-record made stores %s", data)
	}
}

// TestKeepEnforce: settings kept at start win over run.json's, and so does
// the state as loopkit last wrote it (KeepState); a run with none kept is
// left alone.
func TestKeepEnforce(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	dir := filepath.Join(t.TempDir(), "runs", "r1")
	s := Defaults()
	s.MaxIterations, s.Agent = 2, []string{"sh"}
	if err := Keep(dir, &s); err != nil {
		t.Fatal(err)
	}
	if !IsKept(dir) || IsKept(dir+"x") {
		t.Error("IsKept is wrong")
	}
	s.DrivenMS = 5000 // the holder's checkpoint
	if err := KeepState(dir, &s); err != nil {
		t.Fatal(err)
	}
	edited := s
	edited.MaxIterations, edited.OnEvent, edited.DrivenMS, edited.ResumedAfter = 50, []string{"curl evil"}, 0, 99
	if ch := Enforce(dir, &edited); !slices.Equal(ch, []string{"driven_ms", "max_iterations", "on_event", "resumed_after"}) {
		t.Errorf("changed %q", ch)
	}
	if edited.MaxIterations != 2 || edited.OnEvent != nil || edited.DrivenMS != 5000 || edited.ResumedAfter != 0 || len(edited.Changed()) != 4 {
		t.Errorf("enforced %+v", edited)
	}
	other := Settings{MaxIterations: 7}
	if ch := Enforce(dir+"x", &other); ch != nil || other.MaxIterations != 7 {
		t.Errorf("a run with none kept: %v %+v", ch, other)
	}
	Forget(dir)
	if IsKept(dir) {
		t.Error("Forget kept it")
	}
	if p, _ := statePath(dir); exists(p) {
		t.Error("Forget kept the state")
	}
}

// TestWriteCutBeforeRunJSON: a writer keeps the settings and the state
// before it renames run.json; killed between the two, it leaves run.json
// holding the values it had just replaced. Those are taken over, but were
// never changed by anyone: no warning. A value neither kept now nor just
// before is still named.
func TestWriteCutBeforeRunJSON(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	dir := filepath.Join(t.TempDir(), "runs", "r1")
	s := Defaults()
	s.MaxIterations, s.Agent, s.DrivenMS = 2, []string{"sh"}, 1000
	if err := Keep(dir, &s); err != nil {
		t.Fatal(err)
	}
	onDisk := s // run.json as the last whole write left it
	next := s
	next.MaxIterations, next.DrivenMS, next.ResumedAfter = 5, 2000, 3 // loop resume --max-iterations 5
	if err := Keep(dir, &next); err != nil {
		t.Fatal(err)
	}
	// killed here: run.json not renamed
	got := onDisk
	if ch := Enforce(dir, &got); len(ch) != 0 {
		t.Errorf("a cut write read as changed: %q", ch)
	}
	if got.MaxIterations != 5 || got.DrivenMS != 2000 || got.ResumedAfter != 3 {
		t.Errorf("enforced %+v", got)
	}
	next.DrivenMS = 2500
	if err := KeepState(dir, &next); err != nil { // the next checkpoint, whole
		t.Fatal(err)
	}
	tampered := next
	tampered.MaxIterations, tampered.DrivenMS = 50, 0
	if ch := Enforce(dir, &tampered); !slices.Equal(ch, []string{"driven_ms", "max_iterations"}) {
		t.Errorf("changed %q", ch)
	}
	unchanged := next
	if err := KeepState(dir, &next); err != nil {
		t.Fatal(err)
	}
	if ch := Enforce(dir, &unchanged); len(ch) != 0 || unchanged.DrivenMS != 2500 {
		t.Errorf("a state kept twice: %q %+v", ch, unchanged)
	}
}

func exists(path string) bool { _, err := os.Lstat(path); return err == nil }

// TestEnforceDecodedOnce: the kept file decoded once serves later reads,
// but never one changed since (by Keep, or replaced by anything else),
// and a caller changing what it got changes no later read.
func TestEnforceDecodedOnce(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	dir := filepath.Join(t.TempDir(), "runs", "r1")
	s := Defaults()
	s.MaxIterations, s.Agent = 2, []string{"sh", "agent"}
	if err := Keep(dir, &s); err != nil {
		t.Fatal(err)
	}
	read := func() Settings {
		got := Defaults()
		got.Agent = []string{"evil"}
		Enforce(dir, &got)
		return got
	}
	first := read()
	first.Agent[0] = "changed by the caller"
	if got := read(); got.MaxIterations != 2 || !slices.Equal(got.Agent, []string{"sh", "agent"}) {
		t.Fatalf("second read: %d %q", got.MaxIterations, got.Agent)
	}
	s.MaxIterations = 5
	if err := Keep(dir, &s); err != nil {
		t.Fatal(err)
	}
	if got := read(); got.MaxIterations != 5 {
		t.Errorf("after Keep: max_iterations %d, want 5", got.MaxIterations)
	}
	// replaced by another process: a new file renamed over it
	path, err := keptPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.Replace(data, []byte(`"max_iterations":5`), []byte(`"max_iterations":9`), 1)
	if err := os.WriteFile(path+".new", data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".new", path); err != nil {
		t.Fatal(err)
	}
	if got := read(); got.MaxIterations != 9 {
		t.Errorf("after a replacement: max_iterations %d, want 9", got.MaxIterations)
	}
}

// A duration out of range says the bound in a form the parser takes: it
// said "want 0 (none) or 1ms to 366d", and 366d is refused as no duration.
func TestDurationBoundReads(t *testing.T) {
	_, err := ParseDuration("1e20")
	if err == nil {
		t.Fatal("1e20 read as a duration")
	}
	i := strings.LastIndex(err.Error(), " to ")
	if i < 0 {
		t.Fatalf("error %q names no bound", err)
	}
	bound, _, _ := strings.Cut(err.Error()[i+len(" to "):], " ")
	if d, err := ParseDuration(bound); err != nil || d != MaxDuration {
		t.Errorf("the bound the error gives, %q, reads as %v, %v; want %v", bound, d, err, MaxDuration)
	}
}

// A holder killed between Keep's write and its rename leaves <name>.tmp
// in the state directory; a run deleted before any resume kept its
// settings again is never named there again, so Forget removes it too.
func TestForgetRemovesAKilledKeepsTemp(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	dir := filepath.Join(t.TempDir(), "runs", "r1")
	s := Defaults()
	if err := Keep(dir, &s); err != nil {
		t.Fatal(err)
	}
	path, err := keptPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	// what a kill -9 after the write and before the rename leaves
	if err := os.WriteFile(path+".tmp", []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	Forget(dir)
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*"))
	if len(left) > 0 {
		t.Errorf("left in the state directory after Forget: %v", left)
	}
}
