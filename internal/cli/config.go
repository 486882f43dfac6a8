package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	flags "github.com/jessevdk/go-flags"

	"github.com/loopkit/loopkit/internal/exitcode"
	"github.com/loopkit/loopkit/internal/runconfig"
	"github.com/loopkit/loopkit/internal/safefile"
	"github.com/loopkit/loopkit/internal/wfile"
)

// KnownKey reports a key some loopkit command reads: a run setting's
// config key or alias, or a key one command reads for itself (all named
// in runconfig).
func KnownKey(key string) bool { return runconfig.Known(key) }

// UnknownKeyWarning is the warning for a config key no command reads,
// with the closest known key when one is close.
func UnknownKeyWarning(key string) string {
	if s := runconfig.Suggest(key); s != "" {
		return fmt.Sprintf("unknown config key %s (did you mean %s?)", key, s)
	}
	return "unknown config key " + key
}

// Setting is one key=value from a config file, with where it came from.
type Setting struct {
	Value string
	File  string
	Line  int
}

// Config is the merged settings of the config files, later files winning.
type Config map[string]Setting

// ConfigError is a bad config line or value, naming file, line and key.
type ConfigError struct {
	File string
	Line int
	Key  string
	Msg  string
}

func (e *ConfigError) Error() string {
	if e.Key != "" {
		return fmt.Sprintf("%s:%d: key %q: %s", e.File, e.Line, e.Key, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// ParseConfig parses key=value lines; '#' starts a comment line, blank lines
// are skipped, values may be quoted with "..." (Go syntax).
func ParseConfig(name string, data []byte, into Config) error {
	// an editor's byte-order mark made the first key unknown, warned as
	// "unknown config key iterations (did you mean iterations?)"
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, val, ok := strings.Cut(line, "=")
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		if !ok || key == "" {
			return &ConfigError{File: name, Line: n, Msg: "want key=value"}
		}
		if strings.HasPrefix(val, `"`) {
			uq, err := strconv.Unquote(val)
			if err != nil {
				return &ConfigError{File: name, Line: n, Key: key, Msg: `bad quoted value: want "TEXT" in Go syntax (\" and \\ escaped), nothing after its closing quote`}
			}
			val = uq
		}
		// the run's copy of the config is JSON, which keeps no invalid
		// UTF-8: such a value would differ there from what the driver read
		if !utf8.ValidString(key) || !utf8.ValidString(val) {
			return &ConfigError{File: name, Line: n, Key: strings.ToValidUTF8(key, "?"), Msg: "not UTF-8 text: save the file as UTF-8"}
		}
		if f := runconfig.ByConfig(key); f != nil {
			// a later file gives the setting, by whichever of its names:
			// an earlier file's other name (iterations, max_iterations)
			// must not win over it for being the seed's
			for _, k := range append([]string{f.Config}, f.Aliases...) {
				if s, ok := into[k]; ok && s.File != name {
					delete(into, k)
				}
			}
		}
		into[key] = Setting{Value: val, File: name, Line: n}
	}
	if err := sc.Err(); err != nil {
		return &ConfigError{File: name, Line: n + 1, Msg: err.Error()}
	}
	return nil
}

// MaxConfigBytes caps a config file: the agent can write the store's, and
// a FIFO, a link to a secret or a huge file there is refused, not read.
const MaxConfigBytes = 1 << 20

// RunConfigEnv names the config a driver read when its run started: under
// the driver every loopkit command reads that copy, not the files, which
// the agent can rewrite while the run goes on (keep_last=1, prices=0).
const RunConfigEnv = "LOOPKIT_RUN_CONFIG"

// LoadConfig reads the store's config, then the --config/LOOP_CONFIG file,
// or under a driver the copy RunConfigEnv names. A missing store config is
// fine; a missing named file is an error.
func LoadConfig(storeConfig, named string) (Config, error) {
	cfg, _, err := LoadConfigRead(storeConfig, named)
	return cfg, err
}

// LoadConfigRead is LoadConfig, also giving the content of each config
// file it read by name (none when it read the driver's copy), as parsed:
// what a trust check hashes.
func LoadConfigRead(storeConfig, named string) (Config, map[string][]byte, error) {
	if fixed := os.Getenv(RunConfigEnv); fixed != "" {
		// only for the driver's store: a validation may run loopkit on another.
		// A copy gone (a runtime directory emptied at logout) leaves the
		// files: failing would stop the run unmarked, its driver gone.
		cfg, err := readFixed(fixed, storeConfig)
		if (cfg != nil || err != nil) && !errors.Is(err, os.ErrNotExist) {
			return cfg, nil, err
		}
	}
	return loadFiles(storeConfig, named)
}

func loadFiles(storeConfig, named string) (Config, map[string][]byte, error) {
	cfg, read := Config{}, map[string][]byte{}
	if storeConfig != "" {
		data, err := safefile.ReadFile(storeConfig, MaxConfigBytes)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, nil, err
		}
		if err := ParseConfig(storeConfig, data, cfg); err != nil {
			return nil, nil, err
		}
		if err == nil {
			read[storeConfig] = data
		}
	}
	if named != "" {
		data, err := safefile.ReadFile(named, MaxConfigBytes)
		if errors.Is(err, os.ErrNotExist) {
			// as the driver says it (loopdrive.loadConfig)
			return nil, nil, fmt.Errorf("config %s (--config or LOOP_CONFIG): no such file", named)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("config: %w", err)
		}
		if err := ParseConfig(named, data, cfg); err != nil {
			return nil, nil, err
		}
		read[named] = data
	}
	return cfg, read, nil
}

// fixedConfig is the file RunConfigEnv names: the config read for the
// store whose config file is StoreConfig.
type fixedConfig struct {
	StoreConfig string `json:"store_config"`
	Config      Config `json:"config"`
}

// WriteFixed writes c, read for the store config storeConfig, where
// RunConfigEnv can name it (a new file, 0600).
func WriteFixed(path, storeConfig string, c Config) error {
	data, err := json.Marshal(fixedConfig{StoreConfig: storeConfig, Config: c})
	if err != nil {
		return err
	}
	return wfile.WriteNew(path, data, 0o600)
}

// ConfigChanged reports whether, under a driver, the config files now say
// otherwise than the run's copy: someone (the agent can) changed them
// while the run went on, and the next run will obey what they say now.
func ConfigChanged(storeConfig, named string) bool {
	fixed := os.Getenv(RunConfigEnv)
	if fixed == "" {
		return false
	}
	kept, err := readFixed(fixed, storeConfig)
	if kept == nil || err != nil {
		return false
	}
	now, _, err := loadFiles(storeConfig, named)
	return err != nil || !maps.EqualFunc(kept, now, func(a, b Setting) bool { return a.Value == b.Value })
}

// readFixed is the config at path when it was read for storeConfig; nil
// when it was read for another store.
func readFixed(path, storeConfig string) (Config, error) {
	data, err := safefile.ReadFile(path, 4*MaxConfigBytes)
	if err != nil {
		return nil, fmt.Errorf("the run's config (%s): %w", RunConfigEnv, err)
	}
	var fc fixedConfig
	if err := json.Unmarshal(data, &fc); err != nil {
		return nil, fmt.Errorf("the run's config %s (%s): %w", path, RunConfigEnv, err)
	}
	if fc.StoreConfig != storeConfig {
		return nil, nil
	}
	if fc.Config == nil {
		fc.Config = Config{}
	}
	return fc.Config, nil
}

// Apply fills every option tagged `config:"key"` in data that was given
// neither as a flag nor through its environment variable, so the precedence
// is flag > env > config files > default. Unknown keys are logged.
func (c Config) Apply(env *Env, p *flags.Parser, data any) error {
	// under a driver, the driver warned once when it took the run
	if os.Getenv(driverEnv) == "" {
		c.WarnUnknown(env)
	}
	return c.apply(p, reflect.ValueOf(data).Elem())
}

// Check reports the error Apply would give for data's options, setting
// none of them.
func (c Config) Check(p *flags.Parser, data any) error {
	return c.apply(p, reflect.New(reflect.TypeOf(data).Elem()).Elem())
}

// Tools reads the config keys that commands read for themselves
// (runconfig.Tools) with the types and ranges they read them with: the
// driver checks them when a run starts, so a bad value is a usage error
// then, not a failed run at the first command that reads it. A key
// absent is left zero (see Has).
func (c Config) Tools() (runconfig.Tools, error) {
	var t runconfig.Tools
	return t, c.apply(nil, reflect.ValueOf(&t).Elem())
}

// Values are the settings as runconfig.Resolve reads them, each naming
// its file:line.
func (c Config) Values() map[string]runconfig.ConfigValue {
	m := map[string]runconfig.ConfigValue{}
	for k, s := range c {
		m[k] = runconfig.ConfigValue{Value: s.Value, Where: fmt.Sprintf("%s:%d", s.File, s.Line)}
	}
	return m
}

// Has reports whether the config files set key.
func (c Config) Has(key string) bool { _, ok := c[key]; return ok }

// WarnUnknown warns once about each key no command reads, in file order.
func (c Config) WarnUnknown(env *Env) {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if c[a].File != c[b].File {
			return strings.Compare(c[a].File, c[b].File)
		}
		return c[a].Line - c[b].Line
	})
	for _, k := range keys {
		if !KnownKey(k) {
			env.Log.Warn(UnknownKeyWarning(k), "file", c[k].File, "line", c[k].Line)
		}
	}
}

// Reads reports whether a command whose options are opts (a pointer to
// a struct) reads config key.
func Reads(opts any, key string) bool {
	found := false
	configFields(reflect.TypeOf(opts).Elem(), nil, func(k string, _ reflect.StructField) error {
		found = found || k == key
		return nil
	})
	return found
}

// configFields calls fn with each field of struct t that a config key
// sets, and its key, embedded structs' fields as t's own; each field's
// Index is its path from t, for FieldByIndex. It stops at fn's error.
func configFields(t reflect.Type, at []int, fn func(key string, f reflect.StructField) error) error {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		f.Index = append(at[:len(at):len(at)], i)
		var err error
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			err = configFields(f.Type, f.Index, fn)
		} else if key := f.Tag.Get("config"); key != "" {
			err = fn(key, f)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (c Config) apply(p *flags.Parser, v reflect.Value) error {
	return configFields(v.Type(), nil, func(key string, f reflect.StructField) error {
		fv := v.FieldByIndex(f.Index)
		if long := f.Tag.Get("long"); long != "" && p != nil {
			if opt := p.FindOptionByLongName(long); opt != nil && opt.IsSet() && !opt.IsSetDefault() {
				return nil
			}
		}
		if rs := runconfig.ByConfig(key); rs != nil {
			if err := c.setting(rs, fv); err != nil {
				return err
			}
			return nil
		}
		s, ok := c[key]
		if !ok {
			return nil
		}
		if ev := f.Tag.Get("env"); ev != "" {
			if _, set := os.LookupEnv(ev); set {
				return nil
			}
		}
		err := setValue(fv, s.Value)
		if err == nil {
			err = inRange(f, fv)
		}
		if err == nil {
			err = inChoices(f, p, fv)
		}
		if err == nil && f.Tag.Get("nonblank") != "" && strings.TrimSpace(fv.String()) == "" {
			err = errors.New("must not be empty")
		}
		if err != nil {
			return &ExitError{Code: exitcode.Usage, Err: &ConfigError{File: s.File, Line: s.Line, Key: key, Msg: err.Error()}}
		}
		return nil
	})
}

// inChoices checks a text from a config file against the words its flag
// takes (go-flags' choice tags, which check only the command line), or a
// key of runconfig.Tools against its `choice:"a|b"` tag.
func inChoices(f reflect.StructField, p *flags.Parser, v reflect.Value) error {
	if v.Kind() != reflect.String {
		return nil
	}
	var choices []string
	long := f.Tag.Get("long")
	if long != "" && p != nil {
		if opt := p.FindOptionByLongName(long); opt != nil {
			choices = opt.Choices
		}
	} else if c := f.Tag.Get("choice"); c != "" && long == "" {
		choices = strings.Split(c, "|")
	}
	if len(choices) == 0 || slices.Contains(choices, v.String()) {
		return nil
	}
	return fmt.Errorf("%s is not one of %s", v.String(), strings.Join(choices, ", "))
}

// setting fills an option that is a run's setting as runconfig resolves
// it for the driver, so a command run alone reads it the same way: its
// variable, then the config files (older key names too), then the
// schema's default; checked by the schema's parser, range and choices.
func (c Config) setting(rs *runconfig.Field, fv reflect.Value) error {
	set, err := runconfig.Resolve(runconfig.Sources{Getenv: os.Getenv, Config: c.Values(), Keys: []string{rs.Key}})
	if err != nil {
		return &ExitError{Code: exitcode.Usage, Err: err}
	}
	text := set.Get(rs.Key)
	if text == "" { // unset (a switch off, an empty text)
		fv.Set(reflect.Zero(fv.Type()))
		return nil
	}
	if err := setValue(fv, text); err != nil {
		return &ExitError{Code: exitcode.Usage, Err: fmt.Errorf("%s: %w", rs.Name(), err)}
	}
	return nil
}

func setValue(fv reflect.Value, s string) error {
	if u, ok := fv.Addr().Interface().(flags.Unmarshaler); ok {
		return u.UnmarshalFlag(s)
	}
	switch fv.Kind() {
	case reflect.String:
		fv.SetString(s)
	case reflect.Int, reflect.Int64:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return fmt.Errorf("bad value %q: want a whole number", s)
		}
		fv.SetInt(n)
	case reflect.Float64:
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("bad value %q: want a number", s)
		}
		fv.SetFloat(x)
	case reflect.Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return fmt.Errorf("bad value %q: want true or false", s)
		}
		fv.SetBool(b)
	default:
		return fmt.Errorf("cannot be set from a config file")
	}
	return nil
}

// driverEnv is proc.DriverEnv, named here so that cli, which every command
// imports, stays below proc (TestLayers).
const driverEnv = "LOOPKIT_DRIVER_PID"
