package tui

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/loopkit/loopkit/internal/safefile"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/view"
)

// pageDiffMax caps the changes.patch the iteration page reads: the page
// is held whole while it is open; loop-view diff prints all of it.
const pageDiffMax = 1 << 20

// openPage shows the selected iteration: its Logs line, the agent's final
// message and its diff (changes.patch), as a page to scroll.
func (m *Model) openPage() {
	if m.idx.Len() == 0 {
		return
	}
	rec, err := m.idx.Record(m.cur)
	if err != nil {
		m.msg = err.Error()
		return
	}
	var it struct {
		Iteration int `json:"iteration"`
		Agent     *struct {
			FinalMessage string `json:"final_message"`
		} `json:"agent"`
	}
	if err := json.Unmarshal(rec.Raw, &it); err != nil {
		m.msg = err.Error()
		return
	}
	var b strings.Builder
	(&view.Logs{W: &b, Style: view.Style{}}).Write(rec)
	lines := []row{{text: strings.TrimRight(b.String(), "\n"), color: view.ExitColor(view.Outcome(rec.Raw))}, {}}
	lines = append(lines, row{text: "final message of the agent:", color: "bold"})
	switch {
	case it.Agent == nil:
		lines = append(lines, row{text: "  (no agent step)"})
	case strings.TrimSpace(it.Agent.FinalMessage) == "":
		lines = append(lines, row{text: "  (none)"})
	default:
		for _, l := range strings.Split(strings.TrimRight(it.Agent.FinalMessage, "\n"), "\n") {
			lines = append(lines, row{text: "  " + view.Escape(l, false)})
		}
	}
	lines = append(lines, row{}, row{text: fmt.Sprintf("diff (loop-view diff %s %d):", m.run.RunID, it.Iteration), color: "bold"})
	patch, err := safefile.ReadFile(filepath.Join(m.st.IterationDir(m.run.RunID, it.Iteration), store.ChangesPatch), pageDiffMax)
	switch {
	case errors.Is(err, os.ErrNotExist):
		lines = append(lines, row{text: "  (no changes.patch: the step had no git base to diff from)"})
	case err != nil:
		lines = append(lines, row{text: "  [" + err.Error() + "]"})
	case len(patch) == 0:
		lines = append(lines, row{text: "  (no changes)"})
	default:
		for _, l := range strings.Split(strings.TrimRight(string(patch), "\n"), "\n") {
			c := ""
			switch {
			case strings.HasPrefix(l, "+++") || strings.HasPrefix(l, "---") || strings.HasPrefix(l, "diff "):
				c = "bold"
			case strings.HasPrefix(l, "+"):
				c = "green"
			case strings.HasPrefix(l, "-"):
				c = "red"
			case strings.HasPrefix(l, "@@"):
				c = "cyan"
			}
			lines = append(lines, row{text: view.Escape(l, true), color: c})
		}
	}
	m.page, m.pageRows, m.pageSkip, m.pageFrom = lines, nil, 0, m.screen
	m.screen = pageScreen
}

// pageLines is the page as screen lines, long lines wrapped: it scrolls
// by screen lines, so a line longer than the screen (a one-paragraph
// final message, a minified file in the diff) shows to its end.
func (m *Model) pageLines() []row {
	if m.pageRows == nil || m.pageW != m.w {
		m.pageRows, m.pageW = m.pageRows[:0], m.w
		for _, r := range m.page {
			for _, w := range wrap(expandTabs(r.text), m.w) {
				m.pageRows = append(m.pageRows, row{text: w, color: r.color})
			}
		}
	}
	return m.pageRows
}

// pageBody draws the page from its scroll position.
func (m *Model) pageBody(h int) []string {
	rows := m.pageLines()
	rows = rows[min(m.pageSkip, len(rows)):]
	var out []string
	for _, r := range rows[:min(h, len(rows))] {
		out = append(out, m.paint(r, false))
	}
	return out
}

func (m *Model) pageKey(k string) {
	h := m.bodyHeight()
	last := max(len(m.pageLines())-h, 0) // the top that shows the end
	switch k {
	case "down", "j", "enter":
		m.pageSkip++
	case "up", "k":
		m.pageSkip--
	case "space", "pgdown", "ctrl+d":
		m.pageSkip += h - 1
	case "b", "pgup", "ctrl+u":
		m.pageSkip -= h - 1
	case "home", "g":
		m.pageSkip = 0
	case "end", "G":
		m.pageSkip = last
	}
	m.pageSkip = min(max(m.pageSkip, 0), last)
}
