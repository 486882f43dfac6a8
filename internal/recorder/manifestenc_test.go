package recorder

import (
	"bytes"
	"slices"
	"testing"

	"github.com/loopkit/loopkit/internal/record"
)

// TestManifestEncodingAsMarshal: the manifest spliced from the entries
// kept from the last write is the bytes record.MarshalIndent writes, as
// it grows, when an entry changes, and with text that needs escaping.
func TestManifestEncodingAsMarshal(t *testing.T) {
	sha := "c0ffee"
	m := manifest{RunID: "r<&>\u202e", Platform: map[string]any{"os": "linux", "container_image": nil}}
	var prev []verification
	var enc [][]byte
	check := func(what string) {
		t.Helper()
		got, e, err := encodeManifest(m, prev, enc)
		want, werr := record.MarshalIndent(m)
		if err != nil || werr != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s: %v %v\ngot:\n%s\nwant:\n%s", what, err, werr, got, want)
		}
		prev, enc = slices.Clone(m.Verifications), e
	}
	for n := 1; n <= 6; n++ {
		code := n
		m.verification = verification{Iteration: n, TimestampStart: "a", TimestampEnd: "b", Status: "FAIL",
			CommandsExecuted: []manifestStep{{"agent", "claude -p \u0085<x>", nil, 5}, {"validate", "go test", &code, 7}}}
		if n%2 == 0 {
			m.CommitSHA = &sha
		}
		m.setLatest()
		check("iteration")
	}
	// the latest entry's final verification added: that entry changes
	code := 0
	m.CommandsExecuted = append(slices.Clone(m.CommandsExecuted), manifestStep{finalVerifyStep, "make e2e", &code, 9})
	m.Status = "PASS"
	m.setLatest()
	check("final verification")
	// an earlier entry edited (a manifest another writer replaced)
	m.Verifications[2].Status = "EDITED"
	check("edited")
}

// TestManifestReusesEntries: an entry equal to the last write's is not
// encoded again (the list grows an entry an iteration: encoding it whole
// made a long run's every iteration slower than the last).
func TestManifestReusesEntries(t *testing.T) {
	v := verification{Iteration: 1, Status: "FAIL"}
	m := manifest{RunID: "r", verification: verification{Iteration: 2, Status: "FAIL"}, Verifications: []verification{v, {Iteration: 2, Status: "FAIL"}}}
	got, _, err := encodeManifest(m, []verification{v}, [][]byte{[]byte("    KEPT")})
	if err != nil || !bytes.Contains(got, []byte("\n    KEPT,\n")) {
		t.Fatalf("entry 1 encoded again (%v):\n%s", err, got)
	}
	v.Status = "PASS"
	got, _, _ = encodeManifest(m, []verification{v}, [][]byte{[]byte("    KEPT")})
	if bytes.Contains(got, []byte("KEPT")) {
		t.Fatalf("a changed entry was taken as kept:\n%s", got)
	}
}
