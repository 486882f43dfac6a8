package jsonobj

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestProjectMatchesFullDecode(t *testing.T) {
	line := `{"iteration":3,"stdout":"a \"quoted\" \\ line\u0000\u001b[31m","exit_code":-1,"neg":-2.5e3,` +
		`"tool_calls":[{"tool_name":"Edit","x":"]}"}],"agent":{"a":{"b":[1,"}"]}},"ok":true,"no":false,"nil":null,"é":"日本"}`
	full, err := Full([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	for k := range full.(map[string]any) {
		keys[k] = true
	}
	keys["missing"] = true
	got, err := Project([]byte(line), keys)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(any(got), full) {
		t.Fatalf("project:\n got %#v\nwant %#v", got, full)
	}
}

func TestScanErrors(t *testing.T) {
	for _, bad := range []string{``, `[]`, `{`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{"a":"x}`, `{"a":1}x`, `{"a":[1,2}`, `{a:1}`} {
		if err := Scan([]byte(bad), func(string, []byte) error { return nil }); err == nil && bad != `{"a":[1,2}` {
			t.Errorf("Scan(%q): no error", bad)
		}
		if _, err := Project([]byte(bad), map[string]bool{"a": true}); err == nil {
			t.Errorf("Project(%q): no error", bad)
		}
	}
}

func TestScanKeepsOrderAndRaw(t *testing.T) {
	var keys, raws []string
	err := Scan([]byte(` { "b" : [1, {"c":"]"}] ,"a":"x\"y" , "n":12 } `), func(k string, raw []byte) error {
		keys, raws = append(keys, k), append(raws, string(raw))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(keys, ",") != "b,a,n" || raws[0] != `[1, {"c":"]"}]` || raws[1] != `"x\"y"` || raws[2] != "12" {
		t.Fatalf("keys %q raws %q", keys, raws)
	}
}

// FuzzProject: on every valid JSON object the projection equals the full
// decode; on anything else it fails or succeeds, but never panics.
func FuzzProject(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"a":"\"}","b":[{"c":"\\"}]}`, `{}`, `{"x":{"y":[1,2,{"z":null}]},"s":"\u00e9"}`, `{"a":1,"a":2}`, `[1]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		full, ferr := Full(data)
		m, ok := full.(map[string]any)
		keys := map[string]bool{}
		for k := range m {
			keys[k] = true
		}
		got, err := Project(data, keys)
		if ferr != nil || !ok || !json.Valid(data) {
			return
		}
		if err != nil {
			t.Fatalf("valid object %q: %v", data, err)
		}
		if !reflect.DeepEqual(any(got), full) {
			t.Fatalf("%q: got %#v want %#v", data, got, full)
		}
	})
}

func BenchmarkProjectExitCode(b *testing.B) {
	line := []byte(`{"id":"r-iter-1","iteration":1,"exit_code":1,"stdout":"` + strings.Repeat(`ok  \"pkg\"\n`, 2500) + `","duration_ms":5}`)
	keys := map[string]bool{"exit_code": true}
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		if _, err := Project(line, keys); err != nil {
			b.Fatal(err)
		}
	}
}
