package store

import (
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Backward and forward reading agree on every prefix of a file with long,
// short and empty lines, so a torn tail is never shown by either.
func TestReadBackwardMatchesForward(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	for i := 0; i < 40; i++ {
		n := []int{0, 1, 5, 100, lineChunk - 3, lineChunk + 7, 2*lineChunk + 1}[rng.IntN(7)]
		b.WriteString(strings.Repeat(string(rune('a'+i%26)), n))
		b.WriteByte('\n')
	}
	data := b.String()
	path := filepath.Join(t.TempDir(), "iterations.jsonl")
	cuts := []int{0, 1, len(data) - 1, len(data)}
	for i := 0; i < 60; i++ {
		cuts = append(cuts, rng.IntN(len(data)))
	}
	for _, cut := range cuts {
		if err := os.WriteFile(path, []byte(data[:cut]), 0o600); err != nil {
			t.Fatal(err)
		}
		var fwd, bwd []string
		var fwdOffs, bwdOffs []int64
		end, n, err := ScanFrom(path, 0, 0, func(_ int, off int64, line []byte) error {
			fwd, fwdOffs = append(fwd, string(line)), append(fwdOffs, off)
			return nil
		})
		if err != nil || n != len(fwd) {
			t.Fatal(err, n)
		}
		bend, err := ReadBackward(path, func(off int64, line []byte) (bool, error) {
			bwd, bwdOffs = append(bwd, string(line)), append(bwdOffs, off)
			return true, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		slices.Reverse(bwd)
		slices.Reverse(bwdOffs)
		if !slices.Equal(fwd, bwd) || !slices.Equal(fwdOffs, bwdOffs) || end != bend {
			t.Fatalf("cut %d: forward %d lines (end %d), backward %d lines (end %d)", cut, len(fwd), end, len(bwd), bend)
		}
		if want := strings.LastIndexByte(data[:cut], '\n') + 1; int(end) != want {
			t.Fatalf("cut %d: end %d, want %d", cut, end, want)
		}
	}
}

func TestReadBackwardStops(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	os.WriteFile(path, []byte("1\n2\n3\n4"), 0o600)
	var got []string
	ReadBackward(path, func(_ int64, line []byte) (bool, error) {
		got = append(got, string(line))
		return len(got) < 2, nil
	})
	if strings.Join(got, ",") != "3,2" {
		t.Fatalf("got %v", got)
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.ReaderAt
	n int64
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n += int64(n)
	return n, err
}

// The last line of a log costs the same to read at iteration 5 as at
// iteration 150: the holder reads a run's tail many times an iteration,
// and each read was of the whole log up to 256 KiB.
func TestTailReadDoesNotGrowWithTheLog(t *testing.T) {
	line := `{"iteration":1,"stdout":"` + strings.Repeat("x", 1200) + "\"}\n"
	read := func(lines int) int64 {
		data := strings.Repeat(line, lines)
		c := &countingReader{r: strings.NewReader(data)}
		got, err := tailLines(c, int64(len(data)), 1)
		if err != nil || len(got) != 1 || string(got[0])+"\n" != line {
			t.Fatalf("%d lines: %q, %v", lines, got, err)
		}
		return c.n
	}
	at5, at150 := read(5), read(150)
	if at150 > 16<<10 {
		t.Errorf("the last line read %d bytes of a log of 5 lines, %d of one of 150", at5, at150)
	}
}

// A line past maxLogLine is an error naming the file and the line, read
// from a file and from a plain reader alike; one under it, and a torn tail
// of any length, are not.
func TestScanLongLine(t *testing.T) {
	defer func(n int64) { maxLogLine = n }(maxLogLine)
	maxLogLine = 3 * lineChunk
	ok := strings.Repeat("a", 2*lineChunk+5)
	long := strings.Repeat("b", 3*lineChunk+1)
	path := filepath.Join(t.TempDir(), "events.jsonl")
	for _, tc := range []struct {
		data    string
		lines   int
		wantErr bool
	}{
		{"x\n" + ok + "\n" + ok, 2, false},
		{"x\n" + ok + "\n" + long + long, 2, false},
		{"x\n" + ok + "\n" + long + "\ny\n", 2, true},
	} {
		if err := os.WriteFile(path, []byte(tc.data), 0o600); err != nil {
			t.Fatal(err)
		}
		var got []string
		_, _, err := ScanFrom(path, 0, 0, func(_ int, _ int64, line []byte) error {
			got = append(got, string(line))
			return nil
		})
		if len(got) != tc.lines || got[1] != ok || (err != nil) != tc.wantErr {
			t.Fatalf("ScanFrom: %d lines, %v; want %d, error %v", len(got), err, tc.lines, tc.wantErr)
		}
		if tc.wantErr && (!strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "line 3")) {
			t.Errorf("ScanFrom error %q names neither the file nor line 3", err)
		}
		got = got[:0]
		err = ScanLines(strings.NewReader(tc.data), func(_ int, line []byte) error {
			got = append(got, string(line))
			return nil
		})
		if len(got) != tc.lines || got[1] != ok || (err != nil) != tc.wantErr {
			t.Fatalf("ScanLines: %d lines, %v; want %d, error %v", len(got), err, tc.lines, tc.wantErr)
		}
	}
}
