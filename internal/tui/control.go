package tui

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	tea "charm.land/bubbletea/v2"

	"github.com/loopkit/loopkit/internal/store"
)

// Tools are the programs the view runs to change a run: the same doors
// as `loop pause|cancel RUN` (loop-drive pause, cancel) and `loop
// resume RUN` (the driver itself), so every change of status is made,
// recorded and hooked where the command line's is.
type Tools struct {
	Drive string // loop-drive
	Loop  string // the driver (scripts/loop, installed as loop)
}

// FindTools looks for loop-drive and the driver beside the running
// program (installed together), then on PATH; a missing one is "" and
// its keys say so.
func FindTools() Tools {
	find := func(names ...string) string {
		if exe, err := os.Executable(); err == nil {
			for _, n := range names {
				p := filepath.Join(filepath.Dir(exe), n)
				if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
					return p
				}
			}
		}
		for _, n := range names {
			if p, err := exec.LookPath(n); err == nil {
				return p
			}
		}
		return ""
	}
	return Tools{Drive: find("loop-drive"), Loop: find("loop")}
}

// pending is an action waiting for its y.
type pending struct {
	verb, run string
}

// doneMsg is an action's outcome: the line to show.
type doneMsg struct{ text string }

// ask starts the confirmation of verb (pause, resume, cancel) on run id.
func (m *Model) ask(verb, id string) {
	if id == "" {
		return
	}
	m.confirm = &pending{verb: verb, run: id}
}

// answer acts on the key pressed after a question: y runs the action.
func (m *Model) answer(k string) tea.Cmd {
	p := m.confirm
	m.confirm = nil
	if k != "y" {
		m.msg = p.verb + " of run " + p.run + ": not done"
		return nil
	}
	m.msg = p.verb + " of run " + p.run + "…"
	switch p.verb {
	case "resume":
		return m.resume(p.run)
	case "pause":
		return m.drive(p.run, "pause")
	}
	return m.drive(p.run, "cancel")
}

func (m *Model) env() []string { return append(os.Environ(), "LOOP_STORE="+m.st.Root) }

// drive runs loop-drive SUBCOMMAND --run id, as `loop pause|cancel` does, in the
// background (a cancel waits for the driver to stop), and shows its
// message or its error.
func (m *Model) drive(id, sub string) tea.Cmd {
	if m.tools.Drive == "" {
		m.msg = "loop-drive not found beside loop-tui nor on PATH: install loopkit (make install)"
		return nil
	}
	path, env := m.tools.Drive, m.env()
	return func() tea.Msg {
		cmd := exec.Command(path, sub, "--run", id)
		// its messages name loop, as under `loop pause|cancel`: the
		// person pressed a key and never typed loop-drive
		cmd.Env = append(env, "LOOP_PROG=loop")
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		if err != nil {
			return doneMsg{lastLine(errb.String(), err.Error())}
		}
		return doneMsg{fmt.Sprintf("run %s %s", id, lastLine(out.String(), "done"))}
	}
}

// resume starts `loop resume id` on its own, in a new session so that it
// outlives the view, its output appended to the run's resume.log.
func (m *Model) resume(id string) tea.Cmd {
	if m.tools.Loop == "" {
		m.msg = "the driver (loop) not found beside loop-tui nor on PATH: install loopkit (make install)"
		return nil
	}
	logPath := filepath.Join(m.st.RunDir(id), "resume.log")
	// the run's directory is in the agent's reach: no link followed, no
	// FIFO waited on, a regular file only; 0600 as the store's every file
	f, err := os.OpenFile(logPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, store.FileMode)
	if err == nil {
		if fi, serr := f.Stat(); serr != nil || !fi.Mode().IsRegular() {
			f.Close()
			err = fmt.Errorf("%s is not a regular file", logPath)
		} else if err = f.Chmod(store.FileMode); err != nil {
			f.Close()
		}
	}
	if err != nil {
		m.msg = fmt.Sprintf("resume of run %s: %v", id, err)
		return nil
	}
	cmd := exec.Command(m.tools.Loop, "resume", id)
	cmd.Env = m.env()
	if os.Getenv("LOOP_BIN") == "" && m.tools.Drive != "" {
		// the driver runs the loop-* commands the view found
		cmd.Env = append(cmd.Env, "LOOP_BIN="+filepath.Dir(m.tools.Drive))
	}
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	f.Close()
	if err != nil {
		m.msg = fmt.Sprintf("resume of run %s: %v", id, err)
		return nil
	}
	m.msg = fmt.Sprintf("run %s resuming: driver pid %d, its output in %s", id, cmd.Process.Pid, logPath)
	return func() tea.Msg {
		// reaped here; a driver that stops (at once: busy, refused; or
		// later: paused, failed) says why in its last line
		if err := cmd.Wait(); err == nil {
			return nil
		}
		// the log is in the agent's reach: its last lines only, no link followed
		tail, _ := store.TailLines(logPath, 4)
		data := bytes.Join(tail, []byte("\n"))
		return doneMsg{fmt.Sprintf("resume of run %s ended (%v): %s", id, cmd.ProcessState, lastLine(string(data), "see "+logPath))}
	}
}

// lastLine is the last non-empty line of s, else def; a last line that is
// a hint comes after the line it follows, which says why.
func lastLine(s, def string) string {
	var said []string
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i := len(lines) - 1; i >= 0 && len(said) < 2; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" {
			continue
		}
		said = append([]string{l}, said...)
		if !strings.HasPrefix(l, "hint:") {
			break
		}
	}
	if len(said) == 0 {
		return def
	}
	return strings.Join(said, "; ")
}

// helpLines lists every key.
var helpLines = []string{
	"keys",
	"",
	"everywhere",
	"  p  pause the run (it stops after its current step)   y confirms",
	"  r  resume the run (a driver starts in the background) y confirms",
	"  C  cancel the run (its driver is stopped)            y confirms",
	"  ?  this help          q, ctrl+c  quit",
	"runs list",
	"  j/k ↑/↓ move  g/G first/last",
	"  enter  open: a running run's live step, another's Logs",
	"a run",
	"  s live step  L logs  o output  d describe  esc runs list",
	"  j/k move  g/G ends  space/b page  f follow  / jq filter",
	"  enter  Logs: the iteration's final message and diff;",
	"         Output: all of its output   tab  expand in place",
	"iteration page",
	"  j/k line  space/b page  g/G ends  esc back",
}

func (m *Model) helpBody(h int) []string {
	var out []string
	for _, l := range helpLines[min(m.helpSkip, len(helpLines)):] {
		out = append(out, truncate("  "+l, m.w))
	}
	return out[:min(h, len(out))]
}

// helpKey closes the help, or on a screen too short for it, j/k and
// space/b scroll it: its last keys were out of reach.
func (m *Model) helpKey(k string) {
	last := max(len(helpLines)-m.bodyHeight(), 0)
	step := map[string]int{"down": 1, "j": 1, "up": -1, "k": -1,
		"space": m.bodyHeight() - 1, "pgdown": m.bodyHeight() - 1, "b": 1 - m.bodyHeight(), "pgup": 1 - m.bodyHeight()}
	if n, ok := step[k]; ok && last > 0 {
		m.helpSkip = min(max(m.helpSkip+n, 0), last)
		return
	}
	m.help = false
}
