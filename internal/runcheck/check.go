// Package runcheck checks a run's settings against the outside world
// before anything runs. It is the only user of the shell parser, in its
// own package so that only the command creating runs (loop-drive) links it
// and pays its start-up.
package runcheck

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/loopkit/loopkit/internal/runconfig"
)

// Check checks what runconfig.Resolve cannot, on the outside world, before anything
// runs: the files and directories named exist, the agent command can be
// started and the validation's first command can be found. A typo is then
// one line and exit 2 instead of a run that fails the same way on every
// iteration.
func Check(s *runconfig.Settings) error {
	fields := runconfig.Fields()
	for i := range fields {
		f := &fields[i]
		v := f.Text(s)
		if f.Check == "" || v == "" {
			continue
		}
		fi, err := os.Stat(v)
		switch {
		case f.Check == "file" && (err != nil || fi.IsDir()):
			return fmt.Errorf("%s %s: no such file", f.Name(), v)
		case f.Check == "dir" && (err != nil || !fi.IsDir()):
			return fmt.Errorf("%s %s: no such directory", f.Name(), v)
		}
	}
	if len(s.Agent) == 0 {
		return errors.New("no agent command: give it after --")
	}
	if err := AgentRunnable(s.Agent[0], s.Dir); err != nil {
		return err
	}
	return ValidationRunnable(s.Validate, s.Dir)
}

// AgentRunnable says why the agent command could not be started: not on
// PATH, no such file, or not executable. A relative path with a slash is
// relative to the workspace dir, where the agent will run.
func AgentRunnable(name, dir string) error {
	path := name
	if strings.Contains(name, "/") {
		if !filepath.IsAbs(name) && dir != "" {
			path = filepath.Join(dir, name)
		}
		fi, err := os.Stat(path)
		if err != nil {
			return fmt.Errorf("agent command %s: no such file", name)
		}
		if fi.IsDir() || fi.Mode()&0o111 == 0 {
			return fmt.Errorf("agent command %s: not executable (chmod +x it)", name)
		}
		return nil
	}
	if _, err := exec.LookPath(name); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return fmt.Errorf("agent command %s: not found on PATH", name)
		}
		return fmt.Errorf("agent command %s: %v", name, err)
	}
	return nil
}
