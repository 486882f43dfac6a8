package watchdog

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/loopkit/loopkit/internal/quote"
	"github.com/loopkit/loopkit/internal/safefile"
)

// blobChange is what a diff did to one file: the blob before and after
// (git's all-zero id for a file that did not exist).
type blobChange struct{ before, after string }

// patchChanges reads the per-file blob ids of a `git diff --binary` (which
// prints full ids on its "index" lines), streaming, so a large patch costs
// no memory. A missing patch has no changes.
func patchChanges(path string) (map[string]blobChange, error) {
	f, err := safefile.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parsePatch(f)
}

func parsePatch(r io.Reader) (map[string]blobChange, error) {
	out := map[string]blobChange{}
	br := bufio.NewReaderSize(r, 64<<10)
	file := ""
	for {
		line, err := br.ReadSlice('\n')
		for errors.Is(err, bufio.ErrBufferFull) {
			// a long content line: skip the rest of it
			_, err = br.ReadSlice('\n')
		}
		switch {
		case bytes.HasPrefix(line, []byte("diff --git a/")):
			file = quote.DiffPath(strings.TrimRight(string(line), "\r\n"))
		case bytes.HasPrefix(line, []byte(`diff --git "`)):
			// git quoted a name (a byte outside ASCII, a quote): the header
			// as it stands names the file, the same in every patch
			file = strings.TrimSpace(string(line[len("diff --git "):]))
		case bytes.HasPrefix(line, []byte("index ")) && file != "":
			ids := strings.Fields(string(line[len("index "):]))
			if len(ids) > 0 {
				if a, b, ok := strings.Cut(ids[0], ".."); ok {
					out[file] = blobChange{a, b}
				}
			}
			file = ""
		}
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// undoes reports whether diff cur puts back every file diff prev changed,
// and changes nothing else: A→B then B→A.
func undoes(cur, prev map[string]blobChange) ([]string, bool) {
	if len(cur) == 0 || len(cur) != len(prev) {
		return nil, false
	}
	files := make([]string, 0, len(cur))
	for f, c := range cur {
		p, ok := prev[f]
		if !ok || c.before != p.after || c.after != p.before {
			return nil, false
		}
		files = append(files, f)
	}
	sort.Strings(files)
	return files, true
}
