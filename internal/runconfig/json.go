package runconfig

import (
	"bytes"
	"encoding/json"
	"reflect"
	"sort"
)

// MarshalJSON writes the settings typed, in key order: numbers as numbers,
// switches as booleans, lists as lists, durations in Go syntax. A driver's
// run (it has an agent) has every setting written, fixed as they were
// resolved at start (a --timeout 0 is not the default 30m, and a later
// version's defaults do not change it); a run only loop-record made has
// its non-zero ones.
func (s Settings) MarshalJSON() ([]byte, error) {
	v := reflect.ValueOf(&s).Elem()
	fields := Fields()
	keys := make([]string, 0, len(fields))
	vals := map[string]any{}
	for i := range fields {
		f := &fields[i]
		if f.Key == "" || f.Flag == "trust-config" || f.zero(&s) && (f.Default == "" || len(s.Agent) == 0) {
			continue
		}
		keys = append(keys, f.Key)
		vals[f.Key] = v.Field(f.index).Interface()
	}
	sort.Strings(keys)
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		vb, err := json.Marshal(vals[k])
		if err != nil {
			return nil, err
		}
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Textual reports whether a stored value of the setting key is text (an
// unknown key counts as text): a text value of any other setting was
// stored by an older loopkit ("max_iterations": "10").
func Textual(key string) bool {
	f := ByKey(key)
	return f == nil || f.kind.Kind() == reflect.String || f.kind == durType
}

// UnmarshalJSON reads typed settings, or the text-valued map older runs
// stored ("max_iterations": "10"): defaults first, then each known key.
// A value that does not read keeps its default and is listed by Bad, so
// that a hand-edited run.json never makes the run unreadable.
func (s *Settings) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*s = Defaults()
	v := reflect.ValueOf(s).Elem()
	for k, r := range raw {
		f := ByKey(k)
		if f == nil {
			continue
		}
		var text string
		if f.kind.Kind() != reflect.String && f.kind != durType && json.Unmarshal(r, &text) == nil {
			if text != "" && f.set(s, text) != nil {
				s.bad = append(s.bad, k)
			}
			continue
		}
		p := reflect.New(f.kind)
		if err := json.Unmarshal(r, p.Interface()); err != nil {
			s.bad = append(s.bad, k)
			continue
		}
		v.Field(f.index).Set(p.Elem())
	}
	sort.Strings(s.bad)
	return nil
}

// Bad are the keys run.json held values of that did not read.
func (s *Settings) Bad() []string { return s.bad }
