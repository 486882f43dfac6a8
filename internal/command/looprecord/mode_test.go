package looprecord

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/loopkit/loopkit/internal/store"
)

// Everything loop-record makes in the store is 0700/0600 whatever the
// umask, and a store root another tool made 0777 (as the driver's mkdir -p
// did) is narrowed: transcripts can hold secrets.
func TestModesUnderUmaskZero(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	root := filepath.Join(t.TempDir(), ".loop")
	if err := os.Mkdir(root, 0o777); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	run := func(stdin []byte, args ...string) {
		t.Helper()
		cmd := loopRecord(root, args...)
		cmd.Stdin = bytes.NewReader(stdin)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v: %s", args, err, out)
		}
	}
	run(nil, "--new-run", "--run", "m")
	os.MkdirAll(st.SpoolDir(), 0o700)
	in, _ := input(t, st, "one", 1)
	run(in, "--run", "m")
	step := []byte(`{"type":"step","command":"agent","exit_code":0,"llm_input_tokens":1}` + "\n")
	run(step, "--run", "m", "--attempt")
	run(nil, "--run", "m", "--snapshot", "start")
	run(nil, "--run", "m", "--status", "stuck", "--no-clean")
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
		case fi.IsDir() && fi.Mode().Perm() != 0o700:
			t.Errorf("%s: mode %v", p, fi.Mode().Perm())
		case !fi.IsDir() && fi.Mode().Perm() != 0o600:
			t.Errorf("%s: mode %v", p, fi.Mode().Perm())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
