package recorder

import (
	"bytes"
	"os"
	"testing"

	"github.com/loopkit/loopkit/internal/store"
)

// TestManifestMemo: a process recording iteration after iteration writes
// the manifest it would write decoding the file each time, and a manifest
// replaced in between (by another writer, or by hand) is read, not the one
// it wrote.
func TestManifestMemo(t *testing.T) {
	r := newRecorder(t)
	path := r.St.RunPath("x", store.ManifestFile)
	record := func(exit int) []byte {
		t.Helper()
		if _, err := r.Record("x", validation(t, exit, "out"), 0); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	record(1)
	record(0)
	withMemo := record(1)
	// replaced by another writer: iteration 1's entry (after the top's,
	// iteration 3's) now says EDITED
	fail := []byte(`"status": "FAIL"`)
	top := bytes.Index(withMemo, fail)
	first := bytes.Index(withMemo[top+1:], fail)
	if top < 0 || first < 0 {
		t.Fatalf("no FAIL status to edit in:\n%s", withMemo)
	}
	at := top + 1 + first
	edited := append(append(bytes.Clone(withMemo[:at]), `"status": "EDITED"`...), withMemo[at+len(fail):]...)
	if err := store.WriteFileAtomic(path, edited, store.FileMode); err != nil {
		t.Fatal(err)
	}
	if got := record(0); !bytes.Contains(got, []byte(`"status": "EDITED"`)) {
		t.Fatalf("the replaced manifest was not read:\n%s", got)
	}
	// the same three iterations, the memo forgotten before each
	r2 := newRecorder(t)
	path2 := r2.St.RunPath("x", store.ManifestFile)
	var fresh []byte
	for _, exit := range []int{1, 0, 1} {
		written.Lock()
		written.path = "" // nothing kept: decoded from the file
		written.Unlock()
		if _, err := r2.Record("x", validation(t, exit, "out"), 0); err != nil {
			t.Fatal(err)
		}
		fresh, _ = os.ReadFile(path2)
	}
	strip := func(b []byte) []byte { // what differs between two runs
		var out [][]byte
		for _, l := range bytes.Split(b, []byte("\n")) {
			if !bytes.Contains(l, []byte("timestamp")) && !bytes.Contains(l, []byte("duration_ms")) {
				out = append(out, l)
			}
		}
		return bytes.Join(out, []byte("\n"))
	}
	if n := bytes.Count(withMemo, []byte(`"iteration":`)); n != 4 { // the top, and 3 listed
		t.Fatalf("manifest after 3 iterations has %d iteration keys:\n%s", n, withMemo)
	}
	if a, b := strip(withMemo), strip(fresh); !bytes.Equal(a, b) {
		t.Fatalf("with the memo:\n%s\ndecoded each time:\n%s", a, b)
	}
}
