package runconfig

import (
	"fmt"
	"reflect"
	"slices"
)

// ConfigValue is one key=value of a config file, with where it was.
type ConfigValue struct {
	Value string
	Where string // "file:line", for messages
}

// Sources are where settings come from, in precedence order: the flags
// given, the environment, the config files (--config/LOOP_CONFIG over the
// store's, merged by the caller), then the defaults.
type Sources struct {
	Flags  map[string][]string // by setting key, the values as given
	Getenv func(string) string
	Config map[string]ConfigValue
	// Keys, when set, are the only settings resolved (a command reading a
	// few of them is not stopped by a bad value of another); the rest are
	// left zero, unread (a command's flags resolve one key at a time, and
	// all 55 defaults parsed for each was most of its cost).
	Keys []string
}

// SettingError is a value a setting does not take: it names where the
// value came from and the accepted form. The driver exits 2 with it.
type SettingError struct {
	Where string // "--max-iterations", "LOOP_ITERATIONS" or ".loop/config:3: iterations"
	Err   error
}

func (e *SettingError) Error() string { return e.Where + " " + e.Err.Error() }

// Defaults are the settings with every default filled.
func Defaults() Settings {
	var s Settings
	fields := Fields()
	for i := range fields {
		if f := &fields[i]; f.Default != "" {
			_ = f.set(&s, f.Default) // checked in init
		}
	}
	return s
}

// Resolve reads every setting from src, each from the first source that
// has it, and checks each value against its type, range and choices; the
// first bad one is a *SettingError. A config key known under two names
// (iterations, max_iterations) is read by its seed name first.
func Resolve(src Sources) (Settings, error) {
	var s Settings
	if src.Keys == nil {
		s = Defaults()
	}
	fields := Fields()
	for i := range fields {
		f := &fields[i]
		if f.State || src.Keys != nil && !slices.Contains(src.Keys, f.Key) {
			continue
		}
		if src.Keys != nil && f.Default != "" {
			_ = f.set(&s, f.Default) // checked in init, as Defaults
		}
		if vals := src.Flags[f.Key]; len(vals) > 0 {
			if f.Many { // each flag one command, never split
				for _, v := range vals {
					if err := utf8Text(v); err != nil {
						return s, &SettingError{Where: "--" + f.Flag, Err: err}
					}
				}
				reflect.ValueOf(&s).Elem().Field(f.index).Set(reflect.ValueOf(append([]string(nil), vals...)))
				continue
			}
			if err := f.set(&s, vals[len(vals)-1]); err != nil { // the last one wins
				return s, &SettingError{Where: "--" + f.Flag, Err: err}
			}
			continue
		}
		if f.Env != "" && src.Getenv != nil {
			if v := src.Getenv(f.Env); v != "" {
				if err := f.set(&s, v); err != nil {
					return s, &SettingError{Where: f.Env, Err: err}
				}
				continue
			}
		}
		for _, k := range append([]string{f.Config}, f.Aliases...) {
			if c, ok := src.Config[k]; k != "" && ok && c.Value != "" {
				if err := f.set(&s, c.Value); err != nil {
					return s, &SettingError{Where: fmt.Sprintf("%s: %s", c.Where, k), Err: err}
				}
				break
			}
		}
	}
	return s, nil
}

// Set sets the setting key from text, checked as Resolve checks it.
func (s *Settings) Set(key, text string) error {
	f := ByKey(key)
	if f == nil {
		return fmt.Errorf("no setting %q", key)
	}
	if err := f.set(s, text); err != nil {
		return &SettingError{Where: f.Name(), Err: err}
	}
	return nil
}

// Get is the setting key as text ("" for an unknown key): what the driver
// gets as S[key].
func (s *Settings) Get(key string) string {
	if f := ByKey(key); f != nil {
		return f.Text(s)
	}
	return ""
}

// List is a list setting's items (the agent's argv, on_event, ...), nil
// for any other key.
func (s *Settings) List(key string) []string {
	if f := ByKey(key); f != nil && f.Many {
		return reflect.ValueOf(s).Elem().Field(f.index).Interface().([]string)
	}
	return nil
}

// Map is every setting that is set, as text by key: what the driver
// receives as set.KEY records (defaults included, so the driver keeps
// none of its own).
func (s *Settings) Map() map[string]string {
	m := map[string]string{}
	fields := Fields()
	for i := range fields {
		f := &fields[i]
		if f.Key == "" || f.Flag == "trust-config" {
			continue
		}
		if !f.zero(s) || f.Default != "" {
			m[f.Key] = f.Text(s)
		}
	}
	return m
}

// FromMap reads settings stored as text by key (run.json's settings
// before they were typed): defaults first, then every known key; a value
// that does not parse is kept at its default and named in the error.
func FromMap(m map[string]string) (Settings, error) {
	s := Defaults()
	var first error
	for k, v := range m {
		f := ByKey(k)
		if f == nil || v == "" {
			continue
		}
		if err := f.set(&s, v); err != nil && first == nil {
			first = &SettingError{Where: "run.json: settings." + k, Err: err}
		}
	}
	return s, first
}
