package otelexport

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestOtelDocNamesEveryAttribute: docs/otel.md lists every loopkit.*
// attribute the spans carry, for whoever builds a dashboard on them; the
// agent's, the tool calls', the validation's and the attempts' were
// sent but not named there.
func TestOtelDocNamesEveryAttribute(t *testing.T) {
	doc, err := os.ReadFile("../../docs/otel.md")
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	attr := regexp.MustCompile(`"(loopkit\.[a-z_.]+)"`)
	seen := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range attr.FindAllStringSubmatch(string(src), -1) {
			name := m[1]
			if strings.HasSuffix(name, ".") {
				name += "<name>" // loopkit.setting.<name>
			}
			seen++
			if !strings.Contains(string(doc), "`"+name+"`") {
				t.Errorf("%s sends %s, which docs/otel.md does not name", f, name)
			}
		}
	}
	if seen < 40 {
		t.Fatalf("found %d attribute names in the sources", seen)
	}
}
