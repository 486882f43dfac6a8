package view

import (
	"bufio"
	"bytes"
	"io"
	"strconv"
	"strings"

	"github.com/loopkit/loopkit/internal/quote"
)

const cyan = "\x1b[36m"

// Patch writes a unified diff, coloured the way git diff colours it when
// style.Color is set: headers bold, hunks cyan, removals red, additions
// green. Piped, it is the bytes as stored; on a terminal, control bytes
// from the work tree are escaped so they cannot act on the screen.
func Patch(w io.Writer, style Style, patch []byte) error {
	if !style.Color && !style.Align {
		_, err := w.Write(patch)
		return err
	}
	bw := bufio.NewWriter(w)
	inHeader := false
	for len(patch) > 0 {
		line := patch
		if i := bytes.IndexByte(patch, '\n'); i >= 0 {
			line, patch = patch[:i+1], patch[i+1:]
		} else {
			patch = nil
		}
		text := strings.TrimSuffix(string(line), "\n")
		color := ""
		switch {
		case strings.HasPrefix(text, "diff --git "):
			inHeader, color = true, bold
		case inHeader && strings.HasPrefix(text, "@@"):
			inHeader, color = false, cyan
		case inHeader:
			color = bold
		case strings.HasPrefix(text, "@@"):
			color = cyan
		case strings.HasPrefix(text, "+"):
			color = green
		case strings.HasPrefix(text, "-"):
			color = red
		}
		bw.WriteString(style.paint(color, Escape(text, true)))
		if len(line) > len(text) {
			bw.WriteByte('\n')
		}
	}
	return bw.Flush()
}

// FileStat is one file of a diff: lines added and removed, or binary.
type FileStat struct {
	Path           string
	Added, Removed int
	Binary         bool
}

// Stat reads a unified diff (git's format) and counts each file's lines.
func Stat(patch []byte) []FileStat {
	var out []FileStat
	var cur *FileStat
	inHunk := false
	for _, line := range strings.Split(string(patch), "\n") {
		switch {
		case strings.HasPrefix(line, "diff --git "):
			out = append(out, FileStat{Path: quote.DiffPath(line)})
			cur, inHunk = &out[len(out)-1], false
		case cur == nil:
		case strings.HasPrefix(line, "Binary files ") || line == "GIT binary patch":
			cur.Binary = true
		case strings.HasPrefix(line, "rename to "):
			cur.Path = unquotePath(strings.TrimPrefix(line, "rename to "))
		case strings.HasPrefix(line, "@@"):
			inHunk = true
		case !inHunk:
		case strings.HasPrefix(line, "+"):
			cur.Added++
		case strings.HasPrefix(line, "-"):
			cur.Removed++
		}
	}
	return out
}

// unquotePath is a path from a patch's header line, unquoted when git
// quoted it.
func unquotePath(p string) string {
	if strings.HasPrefix(p, `"`) {
		if u, err := strconv.Unquote(p); err == nil {
			return u
		}
	}
	return p
}

// NumStat reads git's --numstat -z ("added<TAB>removed<TAB>path" ending
// in a NUL, "-" for a binary file) into the counts WriteStat prints: -z
// keeps a path as its bytes, where plain --numstat quotes one holding a
// byte outside ASCII, a tab or a quote, and Stat names it unquoted.
func NumStat(out []byte) []FileStat {
	var stats []FileStat
	for _, rec := range strings.Split(string(out), "\x00") {
		f := strings.SplitN(strings.TrimPrefix(rec, "\n"), "\t", 3)
		if len(f) != 3 {
			continue
		}
		s := FileStat{Path: f[2], Binary: f[0] == "-"}
		s.Added, _ = strconv.Atoi(f[0])
		s.Removed, _ = strconv.Atoi(f[1])
		stats = append(stats, s)
	}
	return stats
}

// SummaryStat is the --stat part of a summarized changes.patch: its lines
// after the "# " note.
func SummaryStat(summary []byte) []byte {
	var b bytes.Buffer
	for _, line := range bytes.SplitAfter(summary, []byte("\n")) {
		if !bytes.HasPrefix(line, []byte("#")) {
			b.Write(line)
		}
	}
	return b.Bytes()
}
