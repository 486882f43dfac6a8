package store

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// The meta a step or a validation rewrites once its child's group is known
// is written in place (no file created, none freed), and reads back as the
// new meta; a meta longer than the new one, or linked elsewhere too, is
// replaced instead, never left with the old one's tail or written through
// the other name.
func TestUpdateSpoolMeta(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "1-2-ab.step")
	read := func() SpoolMeta {
		t.Helper()
		var m SpoolMeta
		data, _ := os.ReadFile(base + ".json")
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatalf("meta %q: %v", data, err)
		}
		return m
	}
	first := SpoolMeta{PID: 2, Command: "agent --flag", RunID: "r", StartedAt: 1700000000000}
	if err := WriteSpoolMeta(base, first); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(base + ".json")
	second := first
	second.PGID, second.PGIDStart = 1234, 99
	if err := UpdateSpoolMeta(base, second); err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(base + ".json")
	if !os.SameFile(before, after) {
		t.Error("the meta was replaced, not rewritten in place")
	}
	if got := read(); got != second {
		t.Errorf("meta after the update: %+v, want %+v", got, second)
	}

	shorter := second
	shorter.Command = "a"
	if err := UpdateSpoolMeta(base, shorter); err != nil {
		t.Fatal(err)
	}
	if got := read(); got != shorter {
		t.Errorf("a shorter meta: %+v, want %+v", got, shorter)
	}

	other := filepath.Join(dir, "other")
	if err := os.Link(base+".json", other); err != nil {
		t.Skip("no hard links here")
	}
	keep, _ := os.ReadFile(other)
	if err := UpdateSpoolMeta(base, second); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(other); string(got) != string(keep) {
		t.Errorf("written through another name: %q", got)
	}
	if got := read(); got != second {
		t.Errorf("meta after the linked update: %+v", got)
	}
}
