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
	if s := strings.TrimSpace(gitFiles(t, "dist")); s != "" {
		t.Errorf("release archives are tracked by git (git rm --cached them):\n%s", s)
	}
}

// TestNoBinariesInGit: a command built at the top level (go build
// ./cmd/loop-view) leaves its executable there; committed, it weighs on
// every clone and goes stale with the next commit.
func TestNoBinariesInGit(t *testing.T) {
	t.Parallel()
	magics := [][]byte{{0x7f, 'E', 'L', 'F'}, {0xcf, 0xfa, 0xed, 0xfe}, {'M', 'Z'}}
	for _, name := range strings.Split(strings.TrimRight(gitFiles(t, "-z"), "\x00"), "\x00") {
		f, err := os.Open(name)
		if err != nil {
			continue // deleted in the work tree
		}
		head := make([]byte, 4)
		n, _ := f.Read(head)
		f.Close()
		for _, m := range magics {
			if n >= len(m) && string(head[:len(m)]) == string(m) {
				t.Errorf("%s is an executable tracked by git (git rm --cached it)", name)
			}
		}
	}
}

// gitFiles is git ls-files ARGS in this checkout; the test is skipped
// outside one.
func gitFiles(t *testing.T, args ...string) string {
	t.Helper()
	if _, err := os.Stat(".git"); err != nil {
		t.Skip("not a git checkout")
	}
	out, err := exec.Command("git", append([]string{"ls-files"}, args...)...).Output()
	if err != nil {
		t.Skip("git:", err)
	}
	return string(out)
}
