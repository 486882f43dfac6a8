package loopkit_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestNoReleaseArchivesInGit: make dist writes dist/ (ignored); archives
// committed there go stale with the first commit after them.
func TestNoReleaseArchivesInGit(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(".git"); err != nil {
		t.Skip("not a git checkout")
	}
	out, err := exec.Command("git", "ls-files", "dist").Output()
	if err != nil {
		t.Skip("git:", err)
	}
	if s := strings.TrimSpace(string(out)); s != "" {
		t.Errorf("release archives are tracked by git (git rm --cached them):\n%s", s)
	}
}
