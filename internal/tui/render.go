package tui

import (
	"bytes"
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/loopkit/loopkit/internal/view"
	"github.com/loopkit/loopkit/internal/view/columns"
)

var (
	colors = map[string]lipgloss.Style{
		"green":  lipgloss.NewStyle().Foreground(lipgloss.Color("2")),
		"red":    lipgloss.NewStyle().Foreground(lipgloss.Color("1")),
		"yellow": lipgloss.NewStyle().Foreground(lipgloss.Color("3")),
		"cyan":   lipgloss.NewStyle().Foreground(lipgloss.Color("6")),
		"bold":   lipgloss.NewStyle().Bold(true),
	}
	barStyle = lipgloss.NewStyle().Reverse(true)
	selStyle = lipgloss.NewStyle().Bold(true)
)

// row is one screen line: its text and the outcome colour of its iteration.
type row struct {
	text  string
	color string
}

func (m *Model) paint(r row, selected bool) string {
	if !m.color {
		return r.text
	}
	s := r.text
	if st, ok := colors[r.color]; ok && r.color != "" {
		s = st.Render(s)
	}
	if selected {
		s = selStyle.Render(s)
	}
	return s
}

// bodyHeight is the lines between the title bar and the status line.
func (m *Model) bodyHeight() int { return max(m.h-1-len(m.statusLines()), 1) }

// item renders iteration i (index position) as screen lines: collapsed, or
// expanded to its tool calls and whole output.
func (m *Model) item(i int) []row {
	rec, err := m.idx.Record(i)
	if err != nil {
		return []row{{text: "  [" + err.Error() + "]"}}
	}
	code, status := view.Outcome(rec.Raw)
	color := view.ExitColor(code, status)
	open := m.expanded[rec.Offset]
	var b bytes.Buffer
	plain := view.Style{}
	switch {
	case m.screen == logsScreen && !open:
		err = (&view.Logs{W: &b, Style: plain, Attempts: m.attempts}).Write(rec)
	case m.screen == logsScreen:
		err = (&view.Logs{W: &b, Style: plain, Verbose: true, Attempts: m.attempts}).Write(rec)
		if err == nil {
			var out bytes.Buffer
			if err = (&view.Output{W: &out, Style: plain, Full: true}).Write(rec); err == nil {
				_, rest, _ := strings.Cut(out.String(), "\n") // its heading repeats the line above
				b.WriteString(indent(rest))
			}
		}
	default:
		err = (&view.Output{W: &b, Style: plain, Full: open, RunID: m.run.RunID}).Write(rec)
	}
	if err != nil {
		return []row{{text: "  [" + err.Error() + "]"}}
	}
	text := strings.TrimRight(b.String(), "\n")
	var rows []row
	for n, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "[... more: ") {
			l = "[… enter shows all of it]"
		}
		prefix := "  "
		if n == 0 && i == m.cur {
			prefix = "> "
		} else if n > 0 {
			prefix = "    "
		}
		c := ""
		if n == 0 {
			c = color
		}
		for _, w := range wrap(expandTabs(prefix+l), m.w) {
			rows = append(rows, row{text: w, color: c})
		}
	}
	if m.screen == outputScreen {
		rows = append(rows, row{})
	}
	return rows
}

func indent(s string) string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return ""
	}
	return "\n" + s + "\n"
}

// expandTabs puts spaces to the next multiple of 8 for each tab: the
// screen is drawn cell by cell, where a tab would not move the cursor.
func expandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	col := 0 // in cells: a CJK character before a tab takes two
	for n := 0; n < len(s); {
		c, w := ansi.FirstGraphemeCluster(s[n:], ansi.WcWidth)
		n += len(c)
		if c == "\t" {
			w = 8 - col%8
			c = strings.Repeat(" ", w)
		}
		b.WriteString(c)
		col += w
	}
	return b.String()
}

// height is how many screen lines iteration i takes.
func (m *Model) height(i int) int { return len(m.item(i)) }

// visible scrolls so that the selected iteration's first line is on screen.
func (m *Model) visible() {
	if m.cur < m.top || (m.cur == m.top && m.skip > 0) {
		m.top, m.skip = m.cur, 0
		return
	}
	for {
		lines := -m.skip
		for i := m.top; i < m.cur; i++ {
			lines += m.height(i)
		}
		if lines < m.bodyHeight() || m.top >= m.cur {
			return
		}
		m.top, m.skip = m.top+1, 0
	}
}

// end selects the last iteration and scrolls to the bottom.
func (m *Model) end() {
	n := m.idx.Len()
	if n == 0 {
		m.cur, m.top, m.skip = 0, 0, 0
		return
	}
	m.cur = n - 1
	h, total := m.bodyHeight(), 0
	top := n - 1
	for ; top >= 0; top-- {
		total += m.height(top)
		if total >= h {
			break
		}
	}
	m.top, m.skip = max(top, 0), max(total-h, 0)
}

// scroll moves the view by n lines (negative: up), within the log.
func (m *Model) scroll(n int) {
	for n > 0 && m.top < m.idx.Len() {
		h := m.height(m.top)
		if m.skip+n < h || m.top == m.idx.Len()-1 {
			m.skip = min(m.skip+n, max(h-1, 0))
			break
		}
		n -= h - m.skip
		m.top, m.skip = m.top+1, 0
	}
	for n < 0 {
		if m.skip+n >= 0 {
			m.skip += n
			break
		}
		n += m.skip
		if m.top == 0 {
			m.skip = 0
			break
		}
		m.top--
		m.skip = m.height(m.top)
	}
	if m.cur < m.top {
		m.cur = m.top
	}
}

// View draws the screen: a title bar, the body, and a status line.
func (m *Model) view() string {
	var lines []string
	lines = append(lines, m.bar(m.title()))
	h := m.bodyHeight()
	switch {
	case m.help:
		lines = append(lines, m.helpBody(h)...)
	case m.screen == liveScreen:
		lines = append(lines, m.liveBody(h)...)
	case m.screen == pageScreen:
		lines = append(lines, m.pageBody(h)...)
	case m.screen == runsScreen:
		lines = append(lines, m.runsBody(h)...)
	case m.screen == describeScreen:
		lines = append(lines, m.describeBody(h)...)
	default:
		var rows []row
		for i := m.top; i < m.idx.Len() && len(rows) < h+m.skip; i++ {
			rows = append(rows, m.item(i)...)
		}
		rows = rows[min(m.skip, len(rows)):]
		if m.idx.Len() == 0 {
			rows = append(rows, row{text: "  (no iterations" + m.filterNote() + " yet)"})
		}
		for k, r := range rows[:min(h, len(rows))] {
			lines = append(lines, m.paint(r, k == 0 && strings.HasPrefix(r.text, "> ")))
		}
	}
	for len(lines) < h+1 {
		lines = append(lines, "")
	}
	lines = append(lines, m.statusLines()...)
	return strings.Join(lines, "\n")
}

func (m *Model) filterNote() string {
	if m.filter == "" {
		return ""
	}
	return " matching " + m.filter
}

func (m *Model) title() string {
	if m.screen == runsScreen {
		return fmt.Sprintf("loopkit · %s · store %s", view.Plural(len(m.runs), "run"), m.st.Root)
	}
	// only the view shown is named: the status line lists the others'
	// keys, and the title must fit 80 columns with a long run id
	tabs := map[screen]string{liveScreen: "*[s]tep*", logsScreen: "*[L]ogs*", outputScreen: "*[o]utput*",
		describeScreen: "*[d]escribe*", pageScreen: "iteration"}
	names := []string{tabs[m.screen]}
	follow := ""
	if (m.screen == liveScreen && !m.liveHeld) || (m.screen != liveScreen && m.follow) {
		follow = " · following"
	}
	mark := m.mark
	if m.working {
		mark += " (live)"
	}
	return fmt.Sprintf("%s · %s · %d it%s · %s%s", m.run.RunID, mark, m.run.Iteration, m.filterNote(), strings.Join(names, " "), follow)
}

// statusLines is the status line, or a message (an action's outcome, an
// error) wrapped on up to three lines: its point (a hint, the reason) is
// often past 80 columns, after the run id.
func (m *Model) statusLines() []string {
	if m.confirm != nil || m.filtering || m.msg == "" || columns.Cells(m.msg) <= m.w {
		return []string{m.status()}
	}
	var out []string
	line := ""
	for _, word := range strings.Fields(m.msg) {
		switch {
		case line == "":
			line = word
		case columns.Cells(line)+1+columns.Cells(word) <= m.w:
			line += " " + word
		default:
			out, line = append(out, line), word
		}
		for columns.Cells(line) > m.w { // a word wider than the screen
			head, rest := cut(line, m.w)
			out, line = append(out, head), rest
		}
	}
	out = append(out, line)
	if len(out) > 3 {
		out = append(out[:2], truncate(strings.Join(out[2:], " "), m.w))
	}
	return out
}

func (m *Model) status() string {
	switch {
	case m.confirm != nil:
		return truncate(fmt.Sprintf("%s run %s? y: yes, any other key: no", m.confirm.verb, m.confirm.run), m.w)
	case m.filtering:
		return m.input.View()
	case m.msg != "":
		return truncate(m.msg, m.w)
	case m.help && len(helpLines) > m.h-2: // the body, under a one-line status
		return truncate("j/k space/b scroll · other keys close the help", m.w)
	case m.help:
		return truncate("any key closes the help", m.w)
	case m.screen == runsScreen:
		return truncate("j/k move · enter open · p pause · r resume · C cancel · ? help · q quit", m.w)
	case m.screen == describeScreen:
		return truncate("j/k scroll · s L o · p r C · esc runs · ? help · q quit", m.w)
	case m.screen == liveScreen:
		return truncate("j/k scroll · f follow · L o d · p r C · esc runs · ? help · q quit", m.w)
	case m.screen == pageScreen:
		return truncate("j/k line · space/b page · g/G ends · esc back · ? help · q quit", m.w)
	}
	return truncate("j/k · enter open · tab expand · / filter · f follow · s L o d · ? help", m.w)
}

func (m *Model) bar(s string) string {
	s = truncate(s, m.w)
	if pad := m.w - columns.Cells(s); pad > 0 {
		s += strings.Repeat(" ", pad)
	}
	if !m.color {
		return s
	}
	return barStyle.Render(s)
}
