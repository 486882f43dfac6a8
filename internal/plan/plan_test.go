package plan

import (
	"strings"
	"testing"
)

func TestCount(t *testing.T) {
	for _, c := range []struct {
		name, text  string
		done, total int
	}{
		{"empty", "", 0, 0},
		{"no boxes", "# Plan\n- a\n- b\n", 0, 0},
		{"flat", "- [ ] a\n- [x] b\n- [X] c\n", 2, 3},
		{"markers", "* [ ] a\n+ [x] b\n1. [x] c\n2) [ ] d\n", 2, 4},
		{"nested", "- [x] a\n  - [ ] a.1\n    - [x] a.1.1\n\t- [ ] tab\n", 2, 4},
		{"quoted", "> - [x] a\n", 1, 1},
		{"fenced examples", "- [ ] real\n```md\n- [x] example\n```\n~~~\n- [ ] x\n~~~\n- [x] after\n", 1, 2},
		{"longer fence", "````\n```\n- [ ] in\n```\n````\n- [ ] out\n", 0, 1},
		{"not boxes", "- [x]link\n- [y] odd\n-[ ] no space\n[ ] bare\n- [ ]\n", 0, 1},
		{"crlf", "- [x] a\r\n- [ ] b\r\n", 1, 2},
		// an editor's byte-order mark hid the first box
		{"bom", "\ufeff- [ ] a\n- [x] b\n", 1, 2},
		// a line past bufio.Scanner's limit ended the count there
		{"long line", "- [x] a\n" + strings.Repeat("x", 2<<20) + "\n- [ ] b\n", 1, 2},
		{"no final newline", "- [x] a\n- [ ] b", 1, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Count([]byte(c.text))
			if got.Done != c.done || got.Total != c.total {
				t.Errorf("Count = %d/%d, want %d/%d", got.Done, got.Total, c.done, c.total)
			}
		})
	}
}
