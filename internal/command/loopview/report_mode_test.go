package loopview

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/testsupport/otheruser"
)

// report --all --dir wrote every page 0644 whatever the umask: a person
// on a shared machine with umask 077 had the outputs of their runs
// (which can hold secrets) readable by every local user. A page is made
// as a shell's redirection makes it: 0644 less the umask.
func TestReportPageHonoursUmask(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	path := filepath.Join(t.TempDir(), "r1.html")
	if err := writeFile(path, func(f *os.File) error { _, err := f.WriteString("<p>secret</p>"); return err }); err != nil {
		t.Fatal(err)
	}
	syscall.Umask(0o022)
	again := filepath.Join(filepath.Dir(path), "index.html")
	if err := writeFile(again, func(*os.File) error { return nil }); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]os.FileMode{path: 0o600, again: 0o644} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: %v %v, want mode %04o", p, fi.Mode(), err, want)
		}
	}
}

// report --all --dir /tmp/reports wrote the pages (the runs' outputs)
// into a folder another user made there first. It is refused. (Not root:
// this process plays another user, so the store is refused first.)
func TestReportDirOfAnotherUser(t *testing.T) {
	root := filepath.Join(t.TempDir(), ".loop")
	if err := os.MkdirAll(filepath.Join(root, "runs"), 0o700); err != nil {
		t.Fatal(err)
	}
	theirs := filepath.Join(t.TempDir(), "reports")
	if err := os.Mkdir(theirs, 0o777); err != nil {
		t.Fatal(err)
	}
	otheruser.Owns(t, theirs)
	var out, errb strings.Builder
	env := cli.NewEnv("loop-view", []string{"report", "--all", "--dir", theirs, "--store", root}, strings.NewReader(""), &out, &errb)
	if code := env.Finish(Main(env)); code == 0 || os.Getuid() == 0 && !strings.Contains(errb.String(), theirs+" belongs to ") {
		t.Errorf("report --dir into another user's folder: exit %d, %q", code, errb.String())
	}
	if names, _ := os.ReadDir(theirs); len(names) != 0 {
		t.Errorf("wrote %v", names)
	}
}

// A page the person made private (chmod 600: it shows the agent's output
// and prompts) was made 0644 again by the next report --all --dir, where
// a shell's `>` keeps the mode of the file it writes over. A page written
// again is never wider than the one it replaces.
func TestReportPageKeepsItsNarrowerMode(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	path := filepath.Join(t.TempDir(), "r1.html")
	page := func(f *os.File) error { _, err := f.WriteString("<p>secret</p>"); return err }
	if err := writeFile(path, page); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := writeFile(path, page); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("page written again: %v %v, want mode 0600", fi.Mode(), err)
	}
}
