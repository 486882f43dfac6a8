package tui

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/loopkit/loopkit/internal/view"
	"github.com/loopkit/loopkit/internal/view/columns"
)

// The bodies of the runs list and the describe pane.

func (m *Model) runsBody(h int) []string {
	var b bytes.Buffer
	if err := columns.Runs(&b, view.Style{}, m.runs, m.now()); err != nil {
		return []string{err.Error()}
	}
	rows := [][]string{runsHeader}
	for _, l := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
		if l != "" {
			rows = append(rows, strings.Split(l, "\t"))
		}
	}
	all := fitColumns(rows, m.w-2, runsDrop)
	out := []string{"  " + all[0]}
	if len(m.runs) == 0 {
		return append(out, "  (no runs yet: start one with loop run)")
	}
	first := max(0, m.runCur-(h-2))
	for i := first; i < len(m.runs) && i+1 < len(all) && len(out) < h; i++ {
		prefix := "  "
		if i == m.runCur {
			prefix = "> "
		}
		c := ""
		switch m.runs[i].StatusMark() {
		case "completed":
			c = "green"
		case "failed", "STUCK", view.Interrupted:
			c = "red"
		case "running":
			c = "yellow"
		}
		out = append(out, m.paint(row{text: truncate(prefix+all[i+1], m.w), color: c}, i == m.runCur))
	}
	return out
}

// runsHeader names loop-view runs' columns; runsDrop is the order they
// go in when the screen is too narrow (the run id, status and cost stay).
var (
	runsHeader = []string{"RUN", "NAME", "STATUS", "ITER (PASS/FAIL)", "TOKENS IN/OUT", "DURATION", "COST", "AGE"}
	runsDrop   = []int{4, 5, 1, 3, 7}
)

// fitColumns lays rows out in columns two spaces apart, dropping columns
// in the order drop names until the widest line fits width: a value is
// never cut (only the last resort, a line still too wide, is).
func fitColumns(rows [][]string, width int, drop []int) []string {
	gone := map[int]bool{}
	for k := 0; ; k++ {
		widths := map[int]int{}
		total := 0
		for _, r := range rows {
			for i, c := range r {
				widths[i] = max(widths[i], columns.Cells(c))
			}
		}
		n := 0
		for i := range len(rows[0]) {
			if !gone[i] {
				total += widths[i] + 2
				n++
			}
		}
		if total-2 <= width || k == len(drop) {
			out := make([]string, len(rows))
			for j, r := range rows {
				var b strings.Builder
				for i, c := range r {
					if gone[i] {
						continue
					}
					if b.Len() > 0 {
						b.WriteString("  ")
					}
					b.WriteString(c + strings.Repeat(" ", widths[i]-columns.Cells(c)))
				}
				out[j] = strings.TrimRight(b.String(), " ")
			}
			return out
		}
		gone[drop[k]] = true
	}
}

func (m *Model) describeBody(h int) []string {
	out := m.describeLines()
	out = out[min(m.skip, len(out)):]
	return out[:min(h, len(out))]
}

// describeKey scrolls the Describe view, within its lines.
func (m *Model) describeKey(k string) {
	h := m.bodyHeight()
	last := max(len(m.describeLines())-h, 0) // the top that shows the end
	switch k {
	case "down", "j":
		m.skip++
	case "up", "k":
		m.skip--
	case "home", "g":
		m.skip = 0
	case "end", "G":
		m.skip = last
	case "space", "pgdown", "ctrl+d":
		m.skip += h - 1
	case "b", "pgup", "ctrl+u":
		m.skip -= h - 1
	}
	m.skip = min(max(m.skip, 0), last)
}

func (m *Model) describeLines() []string {
	var b bytes.Buffer
	ri, err := view.LoadRun(m.st, m.run.RunID)
	if err != nil {
		return []string{err.Error()}
	}
	live, _ := m.st.IsLive(m.run.RunID)
	if err := view.Describe(&b, view.Style{}, ri, view.RunPaths(m.st, m.run.RunID), live); err != nil {
		return []string{err.Error()}
	}
	if m.sigRun != m.run.RunID {
		m.signals, m.sigRun = view.SignalLog{Keep: view.MaxSignals}, m.run.RunID
	}
	_ = m.signals.Read(m.st, m.run.RunID) // those read so far are still worth showing
	if sigs := m.signals.Last; len(sigs) > 0 {
		b.WriteString("signals:\n")
		if k := m.signals.Total - len(sigs); k > 0 {
			fmt.Fprintf(&b, "  (%d earlier signals: loop-view events %s)\n", k, view.Escape(m.run.RunID, false))
		}
		for _, s := range sigs {
			fmt.Fprintf(&b, "  iteration %d %s %s\n", s.Iteration, s.Type, view.Escape(s.Fields, false))
		}
	}
	var out []string
	for _, l := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
		out = append(out, wrap("  "+l, m.w)...)
	}
	return out
}
