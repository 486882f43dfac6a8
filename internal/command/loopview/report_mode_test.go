package loopview

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
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
