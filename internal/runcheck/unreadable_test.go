package runcheck

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/loopkit/loopkit/internal/runconfig"
)

// A file git would snapshot but cannot read (another user's 0600 file,
// left by a container) failed every snapshot of the run: each iteration
// "files unknown", no changes.patch. The run is refused at start, naming
// the file.
func TestCheckUnreadableFile(t *testing.T) {
	dir := t.TempDir()
	if os.Geteuid() == 0 { // root reads every file: deny what a user could not read
		t.Cleanup(func() { canRead = func(p string) error { return unix.Access(p, unix.R_OK) } })
		canRead = func(p string) error {
			if fi, err := os.Stat(p); err == nil && fi.Mode().Perm()&0o444 == 0 {
				return fs.ErrPermission
			}
			return nil
		}
	}
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
	git("add", "a.txt")
	git("commit", "-qm", "a")
	os.WriteFile(filepath.Join(dir, "secret.env"), []byte("s\n"), 0o000)
	os.Mkdir(filepath.Join(dir, "ignored"), 0o755)
	os.WriteFile(filepath.Join(dir, "ignored", "x"), []byte("x\n"), 0o000)
	os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("ignored/\n"), 0o644)
	t.Cleanup(func() {
		os.Chmod(filepath.Join(dir, "secret.env"), 0o644)
		os.Chmod(filepath.Join(dir, "ignored", "x"), 0o644)
	})

	s := runconfig.Settings{Dir: dir, Validate: "true", Agent: []string{"true"}}
	err := Check(&s)
	if err == nil || !strings.HasPrefix(err.Error(), "git cannot read secret.env in "+dir) {
		t.Fatalf("Check: %v", err)
	}
	wt := s
	wt.Worktree = true // its own checkout holds no such file
	if err := Check(&wt); err != nil && strings.Contains(err.Error(), "cannot read") {
		t.Errorf("Check --worktree: %v", err)
	}
	os.Chmod(filepath.Join(dir, "secret.env"), 0o644) // fixed: the ignored one does not count
	if err := Check(&s); err != nil {
		t.Errorf("Check after chmod: %v", err)
	}
}
