package runconfig

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Field is one setting as its tags describe it.
type Field struct {
	Key     string   // json: run.json's name, and the driver's S[key]
	Flag    string   // without "--"; "" when no flag sets it
	Arg     string   // the value's name in the help; "" for a switch
	Env     string   // environment variable, or ""
	Config  string   // config key (seed 003's name), or ""
	Aliases []string // older config keys, still read
	Default string
	Range   string // "MIN,MAX" (either may be empty)
	Choices []string
	Check   string // "file" or "dir": must exist
	// an option's value in another program's argv: a value starting with
	// '-' would be read there as an option of its own (gemini -m --yolo)
	NoDash bool
	Help   string // "" leaves the flag out of the help
	Note   string // the description of a setting the help leaves out
	State  bool   // the driver's running state, not a setting
	Many   bool   // a list: a repeatable flag
	index  int
	kind   reflect.Type

	// a folder or file name, read as given: no shell expands a leading ~ in
	// a config file or a quoted variable, and it named a folder "~"
	Path bool
}

// schema is the settings table, read from Settings' tags on first use:
// building it takes reflection over every tag, and most starts of a
// command never look at a setting (`--version`, a reader).
type schema struct {
	fields   []Field
	byKey    map[string]*Field
	byFlag   map[string]*Field
	byConfig map[string]*Field // config keys and aliases
	tools    map[string]bool
}

var (
	table   = sync.OnceValue(buildSchema)
	durType = reflect.TypeFor[Duration]()
)

func buildSchema() *schema {
	t := reflect.TypeFor[Settings]()
	n := t.NumField() // sized once: every command that reads a setting builds this at start
	sc := &schema{fields: make([]Field, 0, n), byKey: make(map[string]*Field, n),
		byFlag: make(map[string]*Field, n), byConfig: make(map[string]*Field, n), tools: map[string]bool{}}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		f := Field{Many: sf.Type.Kind() == reflect.Slice, index: i, kind: sf.Type}
		var key string
		eachTag(sf.Tag, func(k, v string) {
			switch k {
			case "json":
				key, _, _ = strings.Cut(v, ",")
			case "flag":
				f.Flag = v
			case "arg":
				f.Arg = v
			case "env":
				f.Env = v
			case "config":
				f.Config = v
			case "default":
				f.Default = v
			case "range":
				f.Range = v
			case "check":
				f.Check = v
			case "help":
				f.Help = v
			case "note":
				f.Note = v
			case "state":
				f.State = v != ""
			case "nodash":
				f.NoDash = v != ""
			case "path":
				f.Path = v != ""
			case "alias":
				if v != "" {
					f.Aliases = strings.Split(v, ",")
				}
			case "choice":
				if v != "" {
					f.Choices = strings.Split(v, "|")
				}
			}
		})
		if key == "-" {
			key = strings.ReplaceAll(f.Flag, "-", "_")
		}
		f.Key = key
		sc.fields = append(sc.fields, f)
	}
	for i := range sc.fields {
		f := &sc.fields[i]
		sc.byKey[f.Key] = f
		if f.Flag != "" {
			sc.byFlag[f.Flag] = f
		}
		for _, c := range append([]string{f.Config}, f.Aliases...) {
			if c != "" {
				sc.byConfig[c] = f
			}
		}
	}
	tt := reflect.TypeFor[Tools]()
	for i := 0; i < tt.NumField(); i++ {
		sc.tools[tt.Field(i).Tag.Get("config")] = true
	}
	return sc
}

// eachTag calls fn with a struct tag's key:"value" pairs in one pass (the
// table asks each field for a dozen keys; reflect's Get would scan the tag
// for each); a value is unquoted only when it holds an escape.
func eachTag(tag reflect.StructTag, fn func(k, v string)) {
	s := string(tag)
	for {
		s = strings.TrimLeft(s, " ")
		k, rest, ok := strings.Cut(s, ":")
		if !ok || len(rest) == 0 || rest[0] != '"' {
			return
		}
		i, esc := 1, false
		for i < len(rest) && rest[i] != '"' {
			if rest[i] == '\\' {
				i, esc = i+1, true
			}
			i++
		}
		if i >= len(rest) {
			return
		}
		v := rest[1:i]
		if esc {
			var err error
			if v, err = strconv.Unquote(rest[:i+1]); err != nil {
				return
			}
		}
		fn(k, v)
		s = rest[i+1:]
	}
}

// Fields are the settings in the order of the struct (the help's order).
func Fields() []Field { return table().fields }

// ByKey is the setting stored under key, or nil.
func ByKey(key string) *Field { return table().byKey[key] }

// ByFlag is the setting a flag (without "--") sets, or nil.
func ByFlag(flag string) *Field { return table().byFlag[flag] }

// ByConfig is the setting a config key (or one of its aliases) sets, or nil.
func ByConfig(key string) *Field { return table().byConfig[key] }

// Known reports a config key some loopkit command reads: a setting's key
// or alias, or one of Tools.
func Known(key string) bool {
	sc := table()
	return sc.byConfig[key] != nil || sc.tools[key]
}

// ConfigKeys are every known config key (aliases included), sorted.
func ConfigKeys() []string {
	var keys []string
	sc := table()
	for k := range sc.byConfig {
		keys = append(keys, k)
	}
	for k := range sc.tools {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Suggest is the known config key closest to an unknown one, "" when
// none is close (at most two edits, or the same words in another order).
func Suggest(key string) string {
	best, bestD := "", 3
	for _, k := range ConfigKeys() {
		if d := distance(key, k); d < bestD {
			best, bestD = k, d
		}
	}
	if best == "" {
		// max_iterations for iterations: one holds the other
		for _, k := range ConfigKeys() {
			if len(k) > 4 && (strings.Contains(key, k) || strings.Contains(k, key) && len(key) > 4) {
				return k
			}
		}
	}
	return best
}

// distance is the Levenshtein distance of a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// Doc is the setting's one-line description: its help, else its note.
func (f *Field) Doc() string {
	if f.Help != "" {
		return f.Help
	}
	return f.Note
}

// Form is the accepted form of the setting's values, for messages.
func (f *Field) Form() string {
	switch {
	case len(f.Choices) > 0:
		return strings.Join(f.Choices, " or ")
	case f.kind == durType:
		return "a duration like 90s, 5m or 3600 (seconds)"
	case f.kind.Kind() == reflect.Bool:
		return "true or false"
	case f.kind.Kind() == reflect.Float64:
		return "a number" + f.rangeText()
	case f.kind.Kind() == reflect.Int || f.kind.Kind() == reflect.Int64:
		return "a whole number" + f.rangeText()
	case f.Many:
		return "one command, or a JSON list of them"
	}
	return "text"
}

func (f *Field) rangeText() string {
	lo, hi, _ := strings.Cut(f.Range, ",")
	switch {
	case lo != "" && hi != "":
		return " from " + lo + " to " + hi
	case lo != "":
		return " of " + lo + " or more"
	}
	return ""
}

// Name is how a message names the setting: its flag, else its config key.
func (f *Field) Name() string {
	switch {
	case f.Flag != "":
		return "--" + f.Flag
	case f.Config != "":
		return f.Config
	}
	return f.Key
}

// set parses text into the field of s, checking its range and choices;
// a list field takes a JSON list or lines.
func (f *Field) set(s *Settings, text string) error {
	v := reflect.ValueOf(s).Elem().Field(f.index)
	bad := func() error { return fmt.Errorf("must be %s, got %q", f.Form(), text) }
	if err := noNUL(text); err != nil {
		return err
	}
	if f.Check == "" { // a path is refused with its own words (Unkept)
		if err := utf8Text(text); err != nil {
			return err
		}
	}
	switch {
	case f.kind == durType:
		d, err := ParseDuration(text)
		if err != nil || (f.Range == "1ms," && d == 0) {
			if f.Range == "1ms," {
				return fmt.Errorf("must be a duration above 0 like 10s, got %q", text)
			}
			return bad()
		}
		v.SetInt(int64(d))
		return nil
	case f.Many:
		list, err := lines(text)
		if err != nil {
			return bad()
		}
		v.Set(reflect.ValueOf(list))
		return nil
	}
	switch f.kind.Kind() {
	case reflect.String:
		if len(f.Choices) > 0 && !contains(f.Choices, text) {
			return bad()
		}
		if f.NoDash && strings.HasPrefix(text, "-") {
			return fmt.Errorf("must not start with '-' (it is given to the agent as a flag's value), got %q", text)
		}
		if f.Path && (text == "~" || strings.HasPrefix(text, "~/")) {
			return fmt.Errorf("%q: nothing expands ~ here (it would name a folder ~): give the full path (\"$HOME/...\" in a shell)", text)
		}
		v.SetString(text)
	case reflect.Bool:
		b, ok := boolean(text)
		if !ok {
			return bad()
		}
		v.SetBool(b)
	case reflect.Int, reflect.Int64:
		n, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
		if err != nil || !f.inRange(float64(n)) {
			return bad()
		}
		v.SetInt(n)
	case reflect.Float64:
		x, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || strings.ContainsAny(text, "xXpP") || !f.inRange(x) {
			return bad()
		}
		v.SetFloat(x)
	}
	return nil
}

func (f *Field) inRange(x float64) bool {
	lo, hi, _ := strings.Cut(f.Range, ",")
	if n, err := strconv.ParseFloat(lo, 64); err == nil && x < n {
		return false
	}
	if n, err := strconv.ParseFloat(hi, 64); err == nil && x > n {
		return false
	}
	return true
}

// Text is the field's value in s as text: the form Set reads back, and
// what the driver gets in S[key] (a list as lines, a duration in Go syntax).
func (f *Field) Text(s *Settings) string {
	v := reflect.ValueOf(s).Elem().Field(f.index)
	switch {
	case f.kind == durType:
		return Duration(v.Int()).String()
	case f.Many:
		return strings.Join(v.Interface().([]string), "\n")
	}
	switch f.kind.Kind() {
	case reflect.Bool:
		if v.Bool() {
			return "1"
		}
		return ""
	case reflect.Int, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10)
	case reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'f', -1, 64)
	}
	return v.String()
}

// zero reports the field is unset in s.
func (f *Field) zero(s *Settings) bool {
	return reflect.ValueOf(s).Elem().Field(f.index).IsZero()
}

// lines reads a list: a JSON list of strings, else one item per non-blank
// line.
func lines(text string) ([]string, error) {
	t := strings.TrimSpace(text)
	if strings.HasPrefix(t, "[") {
		var list []string
		if err := json.Unmarshal([]byte(t), &list); err != nil {
			return nil, err
		}
		for _, c := range list {
			if strings.TrimSpace(c) == "" {
				return nil, fmt.Errorf("an empty command")
			}
			if err := noNUL(c); err != nil {
				return nil, err
			}
		}
		return list, nil
	}
	var list []string
	for l := range strings.SplitSeq(text, "\n") {
		if strings.TrimSpace(l) != "" {
			list = append(list, l)
		}
	}
	return list, nil
}

func boolean(v string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "on":
		return true, true
	case "0", "false", "no", "off", "":
		return false, true
	}
	return false, false
}

// utf8Text: run.json and the kept settings are JSON, which keeps no
// other bytes: a command, model or folder that is not UTF-8 would be
// stored changed, and the run use another after it was created.
func utf8Text(text string) error {
	if !utf8.ValidString(text) {
		return fmt.Errorf("must be UTF-8 text, got %q", text)
	}
	return nil
}

// noNUL: the driver reads the settings from loop-drive as NUL-ended
// records, so a NUL in a value (a config file's "\x00", the agent's to
// write) would end its record there and start one of the file's choosing,
// agent=PROGRAM or tmp=DIR. No command or path can hold one anyway.
func noNUL(text string) error {
	if strings.IndexByte(text, 0) >= 0 {
		return fmt.Errorf("must not hold a NUL byte, got %q", text)
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
