package treelock

import (
	"os"
	"path/filepath"
	"testing"
)

// Each kind of lock reads its own note only: a store's lock names the run
// alone, a user-wide one its driver and tree too; anything else (anyone
// may write there) is no note.
func TestRead(t *testing.T) {
	const id = "20260101-000000-000-a-0001"
	dir := t.TempDir()
	for _, c := range []struct {
		note     string
		userWide bool
		want     *Note
	}{
		{id + "\n", false, &Note{ID: id}},
		{id + " 42 7\n/w", true, &Note{ID: id, PID: 42, Start: 7, Tree: "/w"}},
		{id + "\n", true, nil},
		{id + " 42 7\n/w", false, nil},
		{id + " 42 7\nrelative", true, nil},
		{id + " x 7\n/w", true, nil},
		{"../x\n", false, nil},
	} {
		p := filepath.Join(dir, "l.lock")
		if err := os.WriteFile(p, []byte(c.note), 0o600); err != nil {
			t.Fatal(err)
		}
		got := Read(p, c.userWide)
		if (got == nil) != (c.want == nil) || got != nil && *got != *c.want {
			t.Errorf("Read(%q, %v) = %+v, want %+v", c.note, c.userWide, got, c.want)
		}
	}
	if Read(filepath.Join(dir, "none"), false) != nil {
		t.Error("Read of no file: want nil")
	}
}
