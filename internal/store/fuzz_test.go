package store

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadLog feeds arbitrary bytes (torn and corrupt tails included) to the
// NDJSON readers: they must agree with each other, never pass on a line
// without its newline, and repair must keep every whole line.
func FuzzReadLog(f *testing.F) {
	f.Add([]byte("{\"a\":1}\n{\"a\":2}\n"))
	f.Add([]byte("{\"a\":1}\n{\"a\":"))
	f.Add([]byte("\n\n\xff\x00\n"))
	f.Add([]byte("no newline at all"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var got [][]byte
		err := ScanLines(bytes.NewReader(data), func(_ int, l []byte) error {
			got = append(got, append([]byte(nil), l...))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if want := bytes.Count(data, []byte{'\n'}); len(got) != want {
			t.Fatalf("%d lines read, %d newlines", len(got), want)
		}
		tail, err := tailLines(bytes.NewReader(data), int64(len(data)), 3)
		if err != nil {
			t.Fatal(err)
		}
		if want := got[max(0, len(got)-3):]; len(tail) != len(want) {
			t.Fatalf("tail has %d lines, want %d", len(tail), len(want))
		} else {
			for i := range want {
				if !bytes.Equal(tail[i], want[i]) {
					t.Fatalf("tail line %d differs", i)
				}
			}
		}
		path := filepath.Join(t.TempDir(), "log.jsonl")
		os.WriteFile(path, data, FileMode)
		if _, err := RepairTail(path); err != nil {
			t.Fatal(err)
		}
		after, _ := os.ReadFile(path)
		if end := bytes.LastIndexByte(data, '\n') + 1; !bytes.Equal(after, data[:end]) {
			t.Fatalf("repair kept %d bytes, want %d", len(after), end)
		}
	})
}
