package agent

import (
	"regexp"
	"testing"
)

// typePrefixPattern is what typePrefix reads by hand, the oracle here.
var typePrefixPattern = regexp.MustCompile(`^\{\s*"type"\s*:\s*"([^"\\]{1,64})"(?:\s*,\s*"subtype"\s*:\s*"([^"\\]{1,64})")?`)

func checkTypePrefix(t *testing.T, line []byte) {
	typ, subtype, ok := typePrefix(line)
	m := typePrefixPattern.FindSubmatch(line)
	if ok != (m != nil) || ok && (string(typ) != string(m[1]) || string(subtype) != string(m[2])) {
		t.Fatalf("typePrefix(%q) = %q, %q, %v; the pattern says %q", line, typ, subtype, ok, m)
	}
}

func TestTypePrefixAsThePattern(t *testing.T) {
	long := `"` + string(make([]byte, 64)) + `"`
	for _, line := range []string{
		`{"type":"assistant","message":{}}`, `{ "type" : "result" , "subtype" : "success" }`,
		"{\t\n\"type\":\r\f\"x\"", `{"type":"result","subtype":"a\"b"}`, `{"type":"a\"b"}`,
		`{"type":""}`, `{"type":"x"`, `{"type":"x`, `{"subtype":"x","type":"y"}`, ` {"type":"x"}`,
		`{"type": 3}`, `{"type":"x","subtype":""}`, `{"type":"x","subtype":"y`, `{"type":"x",}`,
		`{"type":"é☃"}`, "{\"type\":\"\xff\xfe\"}", `{"type":` + long + `}`, `{"type":"x","subtype":` + long + `}`,
		`{"type":"` + string(make([]byte, 65)) + `"}`, `{"type":"` + string(make([]rune, 64)) + `"}`,
		`{"type":"` + "☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃" + `"}`,
		`{"type":"` + "☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃" + `"}`,
		"", "{", `{"type"`, `{"type":`, `{"TYPE":"x"}`,
	} {
		checkTypePrefix(t, []byte(line))
	}
}

func FuzzTypePrefixAsThePattern(f *testing.F) {
	f.Add([]byte(`{"type":"result","subtype":"success"}`))
	f.Add([]byte(`{ "type" : "x" , "subtype" : "y`))
	f.Fuzz(func(t *testing.T, line []byte) { checkTypePrefix(t, line) })
}
