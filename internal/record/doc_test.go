package record

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// TestRecordsDocNamesEveryField: docs/records.md lists the fields of the
// records the commands print and scripts read, so a field the code writes
// is named there. The step's rate_limited, model and tool_calls_dropped and
// the IterationLog's failures, input_digest, diff_digest and validation
// times were written but not listed.
func TestRecordsDocNamesEveryField(t *testing.T) {
	doc, err := os.ReadFile("../../docs/records.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []any{Validation{}, Step{}, IterationLog{}, Run{}} {
		ty := reflect.TypeOf(v)
		for i := 0; i < ty.NumField(); i++ {
			name, _, _ := strings.Cut(ty.Field(i).Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			// `name`, or `name: value` as in `denied: true`
			if !regexp.MustCompile("`" + regexp.QuoteMeta(name) + "(`|: )").Match(doc) {
				t.Errorf("docs/records.md does not name %s's field %s", ty.Name(), name)
			}
		}
	}
}

// TestRecordsDocNamesEveryEvent: docs/records.md lists the event types of
// events.jsonl; GIT_CONFIG_CHANGED and SETTINGS_RESTORED were written but
// not listed there.
func TestRecordsDocNamesEveryEvent(t *testing.T) {
	doc, err := os.ReadFile("../../docs/records.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("event.go")
	if err != nil {
		t.Fatal(err)
	}
	events := regexp.MustCompile(`(?m)^\s*Event\w+\s*=\s*"([A-Z_]+)"`).FindAllSubmatch(src, -1)
	if len(events) < 20 {
		t.Fatalf("found %d event types in event.go", len(events))
	}
	for _, m := range events {
		if !strings.Contains(string(doc), "`"+string(m[1])+"`") {
			t.Errorf("docs/records.md does not list the event %s", m[1])
		}
	}
}
