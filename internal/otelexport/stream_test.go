package otelexport

import (
	"bytes"
	"strings"
	"testing"
)

// TestStreamRefusesRunRecord: a run's record (`loop-view runs --json` or
// `describe --json` piped to `loop-export --from -`) has an iteration and a
// validation command but is no iteration; it was sent as one that exited 0.
func TestStreamRefusesRunRecord(t *testing.T) {
	var out bytes.Buffer
	s, err := NewSession(&JSONExporter{W: &out}, defaultRedactor(), false, "test")
	if err != nil {
		t.Fatal(err)
	}
	st := s.NewStream()
	run := `{"schema_version":1,"run_id":"r","name":"r","status":"failed","iteration":3,"attempts":0,"validation_command":"make test","created_at":1,"updated_at":2}`
	err = st.Add([]byte(run))
	if err == nil || !strings.Contains(err.Error(), "not an IterationLog") {
		t.Fatalf("run record: err = %v, want it refused as not an IterationLog", err)
	}
	it := `{"id":"r-iter-1","run_id":"r","iteration":1,"status":"pass","validation_command":"t","exit_code":0,"created_at":1}`
	if err := st.Add([]byte(it)); err != nil {
		t.Fatalf("an IterationLog: %v", err)
	}
}

// TestStreamErrorsInJSONTerms: a record of the wrong shape is said in
// JSON's terms; the errors named Go types ("Go struct field
// probe.iteration of type int", "otelexport.probe").
func TestStreamErrorsInJSONTerms(t *testing.T) {
	s, err := NewSession(&JSONExporter{W: &bytes.Buffer{}}, defaultRedactor(), false, "test")
	if err != nil {
		t.Fatal(err)
	}
	st := s.NewStream()
	for line, want := range map[string]string{
		`{"iteration":"x"}`: `field "iteration": wrong type: got JSON string, want int`,
		`[1]`:               `not a JSON object (got JSON array)`,
		`{"run_id":"r","iteration":1,"validation_command":"t","exit_code":"0"}`: `field "exit_code": wrong type: got JSON string`,
		`{"run_id":"r","type":"x","ts":1,"message":5}`:                          `field "message": wrong type: got JSON number`,
	} {
		err := st.Add([]byte(line))
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "Go ") || strings.Contains(err.Error(), "otelexport.") {
			t.Errorf("%s: err = %v, want %q without Go types", line, err, want)
		}
	}
}
