package runconfig

import (
	"bytes"
	"encoding/json"
	"reflect"
)

// A writer keeps the settings and the state before it renames run.json, so
// a writer killed between the two leaves run.json holding the values it
// had just replaced: taken over like any other, but no sign of tampering.
// So each kept file also holds, under prevKey, the values it replaced.
const prevKey = "prev"

// splitPrev returns a kept file's own values (prevKey dropped) and those it
// replaced (nil for none); ok is false for a file that is no JSON object.
func splitPrev(data []byte) (own []byte, prev map[string]json.RawMessage, ok bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil || m == nil {
		return nil, nil, false
	}
	if raw, found := m[prevKey]; found {
		json.Unmarshal(raw, &prev) // none readable: no values replaced
		delete(m, prevKey)
	}
	own, _ = json.Marshal(m) // sorted keys, as stateJSON and MarshalJSON write
	return own, prev, true
}

// withPrev returns the JSON object data with old's own values added under
// prevKey (data alone when old is no kept file).
func withPrev(data, old []byte) []byte {
	oldOwn, _, ok := splitPrev(old)
	if !ok || !bytes.HasPrefix(data, []byte("{")) || !bytes.HasSuffix(data, []byte("}")) {
		return data
	}
	var b bytes.Buffer
	b.Write(data[:len(data)-1])
	if len(bytes.TrimSpace(data[1:len(data)-1])) > 0 {
		b.WriteByte(',')
	}
	b.WriteString(`"` + prevKey + `":`)
	b.Write(oldOwn)
	b.WriteByte('}')
	return b.Bytes()
}

// wasReplaced reports that v, run.json's value of key, is the one the kept
// file replaced: a write cut before run.json's rename, not a change. (A
// key the replaced values lack was zero: MarshalJSON omits zeros.)
func wasReplaced(prev map[string]json.RawMessage, key string, v reflect.Value) bool {
	if prev == nil {
		return false
	}
	raw, ok := prev[key]
	if !ok {
		return v.IsZero()
	}
	p := reflect.New(v.Type())
	return json.Unmarshal(raw, p.Interface()) == nil && reflect.DeepEqual(v.Interface(), p.Elem().Interface())
}

// differences are the keys run.json held other values for than those kept.
// They are named only when one is not the value the kept file replaced: a
// cut write leaves run.json as a whole earlier write, while a run.json
// edited to old values everywhere it differs changes nothing that matters.
type differences struct {
	keys    []string
	changed bool
}

func (d *differences) add(key string, replaced bool) {
	if !contains(d.keys, key) {
		d.keys = append(d.keys, key)
	}
	d.changed = d.changed || !replaced
}
