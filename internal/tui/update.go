package tui

import (
	tea "charm.land/bubbletea/v2"
)

// Update handles keys, window sizes and the refresh ticks.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = max(msg.Width, 20), max(msg.Height, 5)
		m.input.SetWidth(m.w - len(m.input.Prompt) - 1)
		if m.screen != runsScreen && m.follow {
			m.end()
		}
	case tickMsg:
		m.refresh()
		return m, tick()
	case doneMsg:
		m.msg = msg.text
		m.refresh()
	case tea.KeyPressMsg:
		if m.confirm != nil {
			return m, m.answer(msg.String())
		}
		if m.help {
			m.helpKey(msg.String())
			return m, nil
		}
		if m.filtering {
			return m, m.filterKey(msg)
		}
		return m, m.key(msg.String())
	}
	return m, nil
}

// View is the screen, in the alternate screen buffer.
func (m *Model) View() tea.View {
	v := tea.NewView(m.view())
	v.AltScreen = true
	return v
}

func (m *Model) filterKey(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "enter":
		m.filtering = false
		m.input.Blur()
		m.setFilter(m.input.Value())
		return nil
	case "esc", "ctrl+c":
		m.filtering = false
		m.input.Blur()
		return nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return cmd
}

func (m *Model) key(k string) tea.Cmd {
	m.msg = ""
	switch k {
	case "q", "ctrl+c":
		if m.live != nil {
			m.live.stop()
		}
		return tea.Quit
	case "?":
		m.help, m.helpSkip = true, 0
		return nil
	case "p":
		m.ask("pause", m.selected())
		return nil
	case "r":
		m.ask("resume", m.selected())
		return nil
	case "C":
		m.ask("cancel", m.selected())
		return nil
	}
	if m.screen == pageScreen {
		if k == "esc" || k == "left" || k == "backspace" {
			m.screen, m.page, m.pageRows = m.pageFrom, nil, nil
			return nil
		}
		m.pageKey(k)
		return nil
	}
	if m.screen == runsScreen {
		switch k {
		case "up", "k":
			m.runCur = max(m.runCur-1, 0)
		case "down", "j":
			m.runCur = min(m.runCur+1, max(len(m.runs)-1, 0))
		case "home", "g":
			m.runCur = 0
		case "end", "G":
			m.runCur = max(len(m.runs)-1, 0)
		case "enter", "right", "l", "L":
			if len(m.runs) > 0 {
				if err := m.open(m.runs[m.runCur].Run.RunID); err != nil {
					m.msg = err.Error()
				}
			}
		}
		return nil
	}
	switch k {
	case "esc", "left", "backspace":
		m.close()
		return nil
	case "s":
		m.showLive()
		return nil
	case "L":
		m.show(logsScreen)
	case "o":
		m.show(outputScreen)
	case "d":
		m.screen, m.skip = describeScreen, 0
	case "f":
		if m.screen == liveScreen {
			break
		}
		m.follow = !m.follow
		if m.follow && m.screen != describeScreen {
			m.end()
		}
	case "/":
		if m.screen != describeScreen {
			m.filtering = true
			m.input.SetValue(m.filter)
			m.input.CursorEnd()
			return m.input.Focus()
		}
	}
	if m.screen == liveScreen {
		m.liveKey(k)
		return nil
	}
	if m.screen == describeScreen {
		m.describeKey(k)
		return nil
	}
	n := m.idx.Len()
	if n == 0 {
		return nil
	}
	switch k {
	case "up", "k":
		m.follow = false
		m.cur = max(m.cur-1, 0)
		m.visible()
	case "down", "j":
		m.cur = min(m.cur+1, n-1)
		m.visible()
	case "home", "g":
		m.follow = false
		m.cur, m.top, m.skip = 0, 0, 0
	case "end", "G":
		m.end()
	case "enter", "tab":
		if k == "enter" && m.screen == logsScreen {
			m.openPage()
			return nil
		}
		off := m.idx.Offset(m.cur)
		m.expanded[off] = !m.expanded[off]
		if !m.expanded[off] {
			delete(m.expanded, off)
		}
		m.visible()
	case "space", "pgdown", "ctrl+d":
		m.follow = false
		m.scroll(m.bodyHeight() - 1)
	case "b", "pgup", "ctrl+u":
		m.follow = false
		m.scroll(-(m.bodyHeight() - 1))
	}
	return nil
}

// show switches between the Logs and Output views, keeping the selection.
func (m *Model) show(s screen) {
	if m.screen == describeScreen || m.screen == liveScreen {
		m.skip = 0
	}
	m.screen = s
	if m.follow {
		m.end()
		return
	}
	m.visible()
}
