// Package lookpath finds the programs loopkit itself starts (git, sh, the
// agent) in PATH's absolute folders only. An empty or relative entry
// (".", "bin", "node_modules/.bin") names a folder of wherever the
// process is, often the workspace, where the agent can put a git or an
// sh of its own: exec.LookPath refuses what it finds there (exec.ErrDot),
// and every git call or validation of the run failed; here the search
// goes on to the absolute folders. What the validation command itself
// runs is sh's to find, with PATH as the person gave it.
package lookpath

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Find is exec.LookPath(name) over PATH's absolute folders; a name with
// a slash is exec.LookPath's.
func Find(name string) (string, error) {
	if strings.Contains(name, "/") {
		return exec.LookPath(name)
	}
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if !filepath.IsAbs(dir) {
			continue
		}
		if path, err := exec.LookPath(filepath.Join(dir, name)); err == nil {
			return path, nil
		}
	}
	return "", &exec.Error{Name: name, Err: exec.ErrNotFound}
}

// Command is exec.Command's path for name: Find's answer, or name itself
// when there is none (exec then says it is not found).
func Command(name string) string {
	if path, err := Find(name); err == nil {
		return path
	}
	return name
}
