package trust

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestAcceptIsByContent(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config")
	os.WriteFile(cfg, []byte("iterations=2\n# a hook\non_event=\"touch x\"\nverify_cmds=go test ./...\n"), 0o600)
	data, err := Read(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := Commands(cfg, data)
	if err != nil || len(cs) != 2 || cs[0].Key != "on_event" || cs[0].Line != 3 || cs[1].Value != "go test ./..." {
		t.Fatalf("Commands = %+v, %v", cs, err)
	}
	if ok, err := Accepted(data); ok || err != nil {
		t.Fatalf("accepted before Accept: %v %v", ok, err)
	}
	if err := Accept(cfg); err != nil {
		t.Fatal(err)
	}
	if ok, _ := Accepted(data); !ok {
		t.Error("not accepted after Accept")
	}
	if ok, _ := Accepted(append(data, '\n')); ok {
		t.Error("a changed file is accepted")
	}
	fi, err := os.Stat(filepath.Join(os.Getenv("XDG_STATE_HOME"), "loopkit", "trusted"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("trusted: %v %v", fi, err)
	}
	// a FIFO where the config was is refused, never waited on
	fifo := filepath.Join(dir, "fifo")
	if err := mkfifo(fifo); err == nil {
		if _, err := Read(fifo); err == nil {
			t.Error("a FIFO read as a config")
		}
	}
}
func mkfifo(path string) error { return syscall.Mkfifo(path, 0o600) }

// A power cut in the middle of an accept can leave the record's last line
// torn (cut short, or zeros in its place): the next accept starts a line
// of its own, or its hash would be glued to the torn one and the config
// stay refused right after `loop trust` said it was accepted.
func TestAcceptAfterTornRecord(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	cfg := filepath.Join(t.TempDir(), "config")
	os.WriteFile(cfg, []byte("verify_cmds=make test\n"), 0o600)
	data, err := Read(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := file()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rec, []byte("0123abcd /x/config\n\x00\x00\x00\x00"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Accept(cfg); err != nil {
		t.Fatal(err)
	}
	if ok, err := Accepted(data); !ok || err != nil {
		t.Errorf("not accepted after Accept on a torn record: %v %v", ok, err)
	}
}
