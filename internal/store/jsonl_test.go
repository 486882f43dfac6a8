package store

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func lines(n int) []byte {
	var b bytes.Buffer
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `{"iteration":%d,"text":"%s"}`+"\n", i, strings.Repeat("é", i%7))
	}
	return b.Bytes()
}

func scanAll(t *testing.T, data []byte) []string {
	t.Helper()
	var got []string
	err := ScanLines(bytes.NewReader(data), func(_ int, l []byte) error {
		got = append(got, string(l))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// Truncating a valid log at every byte offset must leave readers with
// exactly the whole lines before the cut, and repair with the same.
func TestTruncateAtEveryOffset(t *testing.T) {
	full := lines(12)
	whole := scanAll(t, full)
	dir := t.TempDir()
	for cut := 0; cut <= len(full); cut++ {
		data := full[:cut]
		want := bytes.Count(data, []byte{'\n'})
		got := scanAll(t, data)
		if len(got) != want {
			t.Fatalf("cut %d: read %d lines, want %d", cut, len(got), want)
		}
		for i := range got {
			if got[i] != whole[i] {
				t.Fatalf("cut %d: line %d differs", cut, i+1)
			}
		}
		tail, err := tailLines(bytes.NewReader(data), int64(len(data)), 3)
		if err != nil {
			t.Fatal(err)
		}
		if wantTail := min(3, want); len(tail) != wantTail || (wantTail > 0 && string(tail[len(tail)-1]) != whole[want-1]) {
			t.Fatalf("cut %d: tail %q", cut, tail)
		}
		path := filepath.Join(dir, fmt.Sprintf("cut%d.jsonl", cut))
		if err := os.WriteFile(path, data, FileMode); err != nil {
			t.Fatal(err)
		}
		torn, err := RepairTail(path)
		if err != nil {
			t.Fatal(err)
		}
		after, _ := os.ReadFile(path)
		if torn != (cut > 0 && full[cut-1] != '\n') || !bytes.Equal(after, full[:len(after)]) || bytes.Count(after, []byte{'\n'}) != want {
			t.Fatalf("cut %d: repair torn=%v left %d bytes", cut, torn, len(after))
		}
		if err := AppendLine(path, []byte(`{"iteration":99}`)); err != nil {
			t.Fatal(err)
		}
		if got := scanAll(t, mustRead(t, path)); len(got) != want+1 || got[want] != `{"iteration":99}` {
			t.Fatalf("cut %d: after append %d lines", cut, len(got))
		}
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRepairTailKeepsTornBytesAside(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.jsonl")
	os.WriteFile(path, []byte("{\"a\":1}\n{\"a\":2"), FileMode)
	if torn, err := RepairTail(path); err != nil || !torn {
		t.Fatalf("torn=%v err=%v", torn, err)
	}
	aside, _ := filepath.Glob(path + ".torn-*")
	if len(aside) != 1 || string(mustRead(t, aside[0])) != `{"a":2` {
		t.Fatalf("torn tail not kept aside: %v", aside)
	}
	if string(mustRead(t, path)) != "{\"a\":1}\n" {
		t.Fatal("log not truncated to its whole lines")
	}
}

func TestScanLinesLongLines(t *testing.T) {
	long := strings.Repeat("x", 3<<20)
	data := []byte("a\n" + long + "\nb\n" + "torn")
	got := scanAll(t, data)
	if len(got) != 3 || got[1] != long || got[2] != "b" {
		t.Fatalf("got %d lines", len(got))
	}
	tail, err := tailLines(bytes.NewReader(data), int64(len(data)), 2)
	if err != nil || len(tail) != 2 || string(tail[0]) != long || string(tail[1]) != "b" {
		t.Fatalf("tail: %d lines, err %v", len(tail), err)
	}
}

func TestTailLinesMatchesScan(t *testing.T) {
	data := lines(5000)
	all := scanAll(t, data)
	for _, n := range []int{1, 5, 100, 4999, 5000, 9000} {
		tail, err := tailLines(bytes.NewReader(data), int64(len(data)), n)
		if err != nil {
			t.Fatal(err)
		}
		want := all[max(0, len(all)-n):]
		if len(tail) != len(want) {
			t.Fatalf("n=%d: %d lines, want %d", n, len(tail), len(want))
		}
		for i := range want {
			if string(tail[i]) != want[i] {
				t.Fatalf("n=%d: line %d differs", n, i)
			}
		}
	}
}

// failingFile injects a write failure after some bytes, as a full disk does.
type failingFile struct {
	bytes.Buffer
	limit     int
	truncated bool
}

func (f *failingFile) Write(p []byte) (int, error) {
	room := f.limit - f.Len()
	if len(p) > room {
		f.Buffer.Write(p[:room])
		return room, syscall.ENOSPC
	}
	return f.Buffer.Write(p)
}
func (f *failingFile) Stat() (os.FileInfo, error) { return sizeInfo(f.Len()), nil }
func (f *failingFile) Truncate(n int64) error {
	f.Buffer.Truncate(int(n))
	f.truncated = true
	return nil
}
func (f *failingFile) Sync() error { return nil }

type sizeInfo int

func (s sizeInfo) Name() string       { return "f" }
func (s sizeInfo) Size() int64        { return int64(s) }
func (s sizeInfo) Mode() os.FileMode  { return 0 }
func (s sizeInfo) ModTime() time.Time { return time.Time{} }
func (s sizeInfo) IsDir() bool        { return false }
func (s sizeInfo) Sys() any           { return nil }

func TestAppendENOSPCLeavesNoPartialRecord(t *testing.T) {
	f := &failingFile{limit: 30}
	f.WriteString("{\"a\":1}\n")
	err := appendTo(f, "iterations.jsonl", []byte(`{"a":2,"padding":"xxxxxxxxxxxxxxxxxxxx"}`), false)
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("err = %v, want ENOSPC", err)
	}
	if !strings.Contains(err.Error(), "iterations.jsonl") {
		t.Fatalf("error does not name the file: %v", err)
	}
	if f.String() != "{\"a\":1}\n" || !f.truncated {
		t.Fatalf("partial record left: %q", f.String())
	}
}

func TestAppendRefusesNewline(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.jsonl")
	if err := AppendLine(path, []byte("a\nb")); err == nil {
		t.Fatal("a record with a newline was appended")
	}
}

// TestAppendLineNeverWritesThroughAHardLink: the agent replaced a run's
// log by a hard link to a file of the person's (one without a final
// newline, which the torn-tail repair would cut). The append goes to a
// log of the store's own; the person's file is not touched.
func TestAppendLineNeverWritesThroughAHardLink(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(dir, "bashrc")
	if err := os.WriteFile(outside, []byte("export A=1\nalias x=y"), 0o600); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "events.jsonl")
	if err := os.Link(outside, log); err != nil {
		t.Skip(err)
	}
	if err := AppendLine(log, []byte(`{"type":"X"}`)); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(outside); string(data) != "export A=1\nalias x=y" {
		t.Fatalf("the linked file now holds %q", data)
	}
	if data, _ := os.ReadFile(log); !strings.HasSuffix(string(data), "{\"type\":\"X\"}\n") {
		t.Fatalf("the log holds %q", data)
	}
}
