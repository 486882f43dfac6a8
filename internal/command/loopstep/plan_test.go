package loopstep

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// A plan is quoted into the prompt up to planQuoteBytes: cut through a
// CJK character, the agent got half of it (U+FFFD).
func TestPlanQuoteCutWhole(t *testing.T) {
	p := filepath.Join(t.TempDir(), "PLAN.md")
	os.WriteFile(p, []byte("- [ ] "+strings.Repeat("日本語", planQuoteBytes/3+10)), 0o644)
	text, err := readHead(p)
	if err != nil || !utf8.ValidString(text) || len(text) < planQuoteBytes-utf8.UTFMax || len(text) > planQuoteBytes {
		t.Errorf("readHead: %d bytes, valid %v, err %v", len(text), utf8.ValidString(text), err)
	}
}
