package tui

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// wideText has CJK (two cells each), letters with combining accents (the
// accent takes no cell) and an emoji joined by a zero-width joiner.
var wideText = strings.Repeat("漢字テスト", 20) + strings.Repeat("e\u0301", 50) + "👩\u200d💻end"

// TestWrapWideCharacters: lines are cut by terminal cells, between grapheme
// clusters, and nothing is lost; truncated and padded text fits its cells.
func TestWrapWideCharacters(t *testing.T) {
	for _, width := range []int{5, 7, 40, 81} {
		pieces := wrap("  "+wideText, width)
		var joined strings.Builder
		for k, p := range pieces {
			if n := termCells(p); n > width {
				t.Errorf("width %d: piece of %d cells: %q", width, n, p)
			}
			if k > 0 {
				p = strings.TrimLeft(p, " ")
				if strings.HasPrefix(p, "\u0301") || strings.HasPrefix(p, "\u200d") || strings.HasPrefix(p, "💻") {
					t.Errorf("width %d: a character cut in two before %q", width, p)
				}
			}
			joined.WriteString(p)
		}
		if joined.String() != "  "+wideText {
			t.Errorf("width %d: text lost in wrapping:\n%q", width, joined.String())
		}
	}
	for _, w := range []int{1, 2, 9, 10} {
		if s := truncate("名前テスト長い名前", w); termCells(s) > w || !strings.HasSuffix(s, "…") {
			t.Errorf("truncate to %d: %q (%d cells)", w, s, termCells(s))
		}
	}
	lines := fitColumns([][]string{{"RUN", "NAME", "STATUS"}, {"r-1", "名前テスト", "completed"}, {"r-2", "x", "failed"}}, 80, nil)
	at := strings.Index(lines[0], "STATUS")
	for _, l := range lines[1:] {
		if i := strings.IndexAny(l, "cf"); termCells(l[:i]) != at {
			t.Errorf("status column at cell %d, not %d:\n%s", termCells(l[:i]), at, strings.Join(lines, "\n"))
		}
	}
}

// TestTerminalWideOutput: in a 40-column terminal an expanded output of
// CJK text wraps within the screen and shows every character (the
// renderer drops what runs past the edge).
func TestTerminalWideOutput(t *testing.T) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux not installed (CI installs it): the view is driven in a terminal there")
	}
	dir := t.TempDir()
	bin := commandsDir(t)
	storeDir := filepath.Join(dir, ".loop")
	cjk := strings.Repeat("漢字テスト", 20)
	for _, args := range [][]string{{"new", "--run", "r-wide"}, {"--run", "r-wide"}, {"status", "--run", "r-wide", "completed"}} {
		cmd := exec.Command(filepath.Join(bin, "loop-record"), args...)
		cmd.Env = append(os.Environ(), "LOOP_STORE="+storeDir)
		cmd.Stdin = strings.NewReader(validation("テスト", 1, cjk+"\nEND\n"))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("loop-record %v: %v\n%s", args, err, out)
		}
	}
	script := fmt.Sprintf("env NO_COLOR=1 LOOP_STORE=%q %q; sleep 60", storeDir, filepath.Join(bin, "loop-view"))
	tm := startTmux(t, tmux, script)
	if out, err := tm.cmd("resize-window", "-t", tm.id, "-x", "40", "-y", "20").CombinedOutput(); err != nil {
		t.Fatalf("tmux resize-window: %v\n%s", err, out)
	}
	tm.waitFor("runs list", has("> r-wide"))
	tm.keys("Enter")
	tm.waitFor("Logs view", has("*[L]ogs*"))
	tm.keys("o")
	tm.waitFor("Output view", has("*[o]utput*"))
	tm.keys("Tab")
	screen := tm.waitFor("expanded output", has("END"))
	var text strings.Builder
	for _, l := range strings.Split(screen, "\n") {
		if termCells(l) > 40 {
			t.Errorf("line of %d cells at 40 columns: %q", termCells(l), l)
		}
		text.WriteString(strings.TrimSpace(l))
	}
	if !strings.Contains(text.String(), cjk) {
		t.Errorf("characters lost from the output at 40 columns:\n%s", screen)
	}
}

// termCells counts as a terminal does, independently of the code tested.
func termCells(s string) int { return ansi.StringWidthWc(s) }

// TestTabsAfterWideCharacters: a tab goes to the next multiple of 8
// cells, counting a CJK character as two, so columns of go test's
// output stay aligned under a package with a CJK name.
func TestTabsAfterWideCharacters(t *testing.T) {
	for in, want := range map[string]int{"ok  \t漢字\t0.01s": 16, "漢字テ\tx": 8, "e\u0301\tx": 8} {
		got := expandTabs(in)
		if i := strings.LastIndex(got, " ") + 1; termCells(got[:i]) != want {
			t.Errorf("expandTabs(%q) = %q: the last column at cell %d, want %d", in, got, termCells(got[:i]), want)
		}
	}
}
