package columns

import (
	"strings"
	"testing"

	"github.com/loopkit/loopkit/internal/view"
)

// The bar starts one column after the longest name, counted in characters.
func TestWriteStatAlignsWideNames(t *testing.T) {
	var b strings.Builder
	if err := WriteStat(&b, view.Style{}, []view.FileStat{{Path: "é", Added: 1}, {Path: "a", Added: 1}}); err != nil {
		t.Fatal(err)
	}
	want := " é | 1 +\n a | 1 +\n 2 files changed, 2 insertions(+)\n"
	if b.String() != want {
		t.Fatalf("WriteStat:\n%q\nwant\n%q", b.String(), want)
	}
}

// A CJK character takes two cells on a terminal: the bars line up only if
// the padding counts cells, not characters.
func TestWriteStatAlignsCJKNames(t *testing.T) {
	var b strings.Builder
	if err := WriteStat(&b, view.Style{}, []view.FileStat{{Path: "日本", Added: 1}, {Path: "abcd", Added: 1}, {Path: "a", Added: 1}}); err != nil {
		t.Fatal(err)
	}
	want := " 日本 | 1 +\n abcd | 1 +\n a    | 1 +\n 3 files changed, 3 insertions(+)\n"
	if b.String() != want {
		t.Fatalf("WriteStat:\n%s\nwant\n%s", b.String(), want)
	}
}
