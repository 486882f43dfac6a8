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
	m.page, m.pageSkip, m.pageFrom = lines, 0, m.screen
	m.screen = pageScreen
}

// pageBody draws the page from its scroll position, long lines wrapped.
func (m *Model) pageBody(h int) []string {
	var out []string
	for _, r := range m.page[min(m.pageSkip, len(m.page)):] {
		for _, w := range wrap(expandTabs(r.text), m.w) {
			out = append(out, m.paint(row{text: w, color: r.color}, false))
		}
		if len(out) >= h {
			break
		}
	}
	return out[:min(h, len(out))]
}

func (m *Model) pageKey(k string) {
	last := max(len(m.page)-1, 0)
	switch k {
	case "down", "j", "enter":
		m.pageSkip = min(m.pageSkip+1, last)
	case "up", "k":
		m.pageSkip = max(m.pageSkip-1, 0)
	case "space", "pgdown", "ctrl+d":
		m.pageSkip = min(m.pageSkip+m.bodyHeight()-1, last)
	case "b", "pgup", "ctrl+u":
		m.pageSkip = max(m.pageSkip-(m.bodyHeight()-1), 0)
	case "home", "g":
		m.pageSkip = 0
	case "end", "G":
		m.pageSkip = max(len(m.page)-m.bodyHeight(), 0)
	}
}
