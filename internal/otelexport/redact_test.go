package otelexport

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/loopkit/loopkit/internal/record"
)

// planted are secrets in the shapes the agent leaves them, each with a
// marker that must never be sent.
var planted = []struct{ text, marker string }{
	{"key sk-ant-api03-PLANTEDKEYAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA ok", "PLANTEDKEY"},
	// a tool summary cut at 200 characters in the middle of a key
	{record.HeadChars(strings.Repeat("x ", 90)+"sk-ant-api03-ZZCUT0123456789abcdefghijk", record.SummaryChars), "ZZCUT"},
	{"export OPENAI=sk-QQCUTab", "QQCUT"},
	{"-----BEGIN OPENSSH PRIVATE KEY-----\nPEMBODYb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW", "PEMBODY"},
	{"QUFBQUFBQUFBQUFBQUFBPEMTAILb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\ndone", "PEMTAIL"},
	{`{"user": "bob", "password": "PWSECRET hunter2 horse", "n": 1}`, "PWSECRET"},
	{`{"api_key":"APIKEYSECRET","token" : "TOKSECRET"}`, "SECRET"},
	{"db:\n  secret: YAMLSECRET\n", "YAMLSECRET"},
}

// fill sets every text of v (strings, their pointers, slices and maps,
// nested records) to text, so that every field the exporter can send
// carries it.
func fill(v reflect.Value, text string) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(text)
	case reflect.Pointer:
		if v.Type().Elem().Kind() == reflect.String || v.Type().Elem().Kind() == reflect.Struct {
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			fill(v.Elem(), text)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), text)
			}
		}
	case reflect.Slice:
		if v.Len() == 0 {
			v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		}
		for i := range v.Len() {
			fill(v.Index(i), text)
		}
	case reflect.Map:
		if v.Type().Key().Kind() == reflect.String && v.Type().Elem().Kind() == reflect.String {
			m := reflect.MakeMap(v.Type())
			for _, k := range []string{"dir", "note", text} {
				m.SetMapIndex(reflect.ValueOf(k), reflect.ValueOf(text))
			}
			v.Set(m)
		}
	}
}

// TestNothingSecretIsSent sends every field of a run, an iteration, an
// attempt and an event, each holding a planted secret, with and without
// --include-content: no planted secret reaches the wire.
func TestNothingSecretIsSent(t *testing.T) {
	for _, content := range []bool{false, true} {
		for _, p := range planted {
			var out bytes.Buffer
			s, err := NewSession(&JSONExporter{W: &out}, defaultRedactor(), content, "test")
			if err != nil {
				t.Fatal(err)
			}
			var meta record.Run
			var it record.IterationLog
			var at record.Attempt
			var ev record.Event
			for _, x := range []any{&meta, &it, &at, &ev} {
				fill(reflect.ValueOf(x).Elem(), p.text)
			}
			it.Iteration, at.Attempt, meta.Status = 1, 1, record.RunFailed
			r := Run{ID: p.text, CreatedAt: 1, Meta: &meta, Events: []record.Event{ev, ev}}
			ctx := context.Background()
			s.Mapper.RunSpan(r, 5)
			s.Mapper.IterationSpans(r, &it)
			s.Mapper.AttemptSpan(r, &at)
			if err := s.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			if out.Len() < 1000 {
				t.Fatalf("only %d bytes sent", out.Len())
			}
			if strings.Contains(out.String(), p.marker) {
				i := strings.Index(out.String(), p.marker)
				t.Errorf("content %v: %q sent: ...%s...", content, p.marker, out.String()[max(i-120, 0):min(i+60, out.Len())])
			}
		}
	}
}

func TestRedactKeepsText(t *testing.T) {
	for in, want := range map[string]string{
		"a risk-free change by the author: Alice": "a risk-free change by the author: Alice",
		`{"password": "a b", "user": "x"}`:        `{[REDACTED], "user": "x"}`,
		"the key is sk-ant-api03-abc":             "the key is [REDACTED]",
	} {
		if got := defaultRedactor().Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzRedactHints: skipping the patterns whose words a text lacks
// redacts exactly what trying them all does.
func FuzzRedactHints(f *testing.F) {
	if len(hints) != len(secretPatterns) {
		f.Fatalf("%d hints for %d patterns", len(hints), len(secretPatterns))
	}
	for _, p := range planted {
		f.Add(p.text)
	}
	for _, s := range []string{"TOKEN: abc", "Authorization: Bearer abcdefghijklmnop", "ghp_" + strings.Repeat("a", 30), "x github_pat_abc", "-----BEGIN RSA PRIVATE KEY-----\nabc", "eyJabcdefghij.abcdefghij.abcdefghij", "plain words"} {
		f.Add(s)
	}
	all := &Content{patterns: defaultRedactor().patterns, hints: make([][]string, len(secretPatterns))}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := defaultRedactor().Redact(s), all.Redact(s); got != want {
			t.Fatalf("Redact(%q) = %q, want %q", s, got, want)
		}
	})
}

// TestStdoutShowsControls: --stdout's OTLP/JSON is read with cat and tail
// as the records are: an agent's C1 controls and bidirectional overrides
// in it come escaped (\u009b), the same values, never raw.
func TestStdoutShowsControls(t *testing.T) {
	const text = "tool\u009b2J\u202e\x1b]0;t\a"
	var out bytes.Buffer
	s, err := NewSession(&JSONExporter{W: &out}, defaultRedactor(), true, "test")
	if err != nil {
		t.Fatal(err)
	}
	var meta record.Run
	var it record.IterationLog
	fill(reflect.ValueOf(&it).Elem(), text)
	it.Iteration, meta.Status = 1, record.RunFailed
	r := Run{ID: "r", CreatedAt: 1, Meta: &meta}
	s.Mapper.IterationSpans(r, &it)
	if err := s.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if b := out.Bytes(); bytes.ContainsAny(b, "\u009b\u202e\x1b") || !bytes.Contains(b, []byte(`tool\u009b2J\u202e\u001b]0;t\u0007`)) {
		t.Errorf("OTLP/JSON not escaped: %.300q", b)
	}
}

// --include-content's output tail began with U+FFFD when its cut went
// through a character (CJK output): it starts at a whole one.
func TestTailStringWholeCharacters(t *testing.T) {
	s := "x" + strings.Repeat("日本語", 2000)
	got := tailString(s, contentChars)
	if !utf8.ValidString(got) || !strings.HasSuffix(s, got) || len(got) < contentChars-utf8.UTFMax || len(got) > contentChars {
		t.Errorf("tail of %d bytes, valid %v: %q…", len(got), utf8.ValidString(got), got[:12])
	}
	if got := tailString("short", contentChars); got != "short" {
		t.Errorf("%q", got)
	}
}
