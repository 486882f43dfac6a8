package initproject

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/store"
)

func TestGuess(t *testing.T) {
	for _, tt := range []struct {
		files map[string]string
		want  string
	}{
		{map[string]string{"go.mod": "module x", "Makefile": "test:\n"}, "go test ./..."},
		{map[string]string{"package.json": `{"scripts":{"test":"vitest"}}`, "pnpm-lock.yaml": ""}, "pnpm test"},
		{map[string]string{"package.json": `{"scripts":{"test":"jest"}}`, "yarn.lock": ""}, "yarn test"},
		{map[string]string{"package.json": `{"scripts":{"build":"tsc"}}`}, ""},
		{map[string]string{"pytest.ini": "[pytest]"}, "python -m pytest"},
		{map[string]string{"setup.cfg": "[tool:pytest]\n"}, "python -m pytest"},
		{map[string]string{"pyproject.toml": "[project]", "tests/test_x.py": ""}, "python -m pytest"},
		{map[string]string{"Cargo.toml": "[package]"}, "cargo test"},
		{map[string]string{"Makefile": "build:\n\tcc x.c\ntest: build\n\t./t\n"}, "make test"},
		{map[string]string{"Makefile": "tests:\n"}, ""},
		{map[string]string{}, ""},
	} {
		dir := t.TempDir()
		for name, body := range tt.files {
			p := filepath.Join(dir, name)
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte(body), 0o644)
		}
		if got, _ := Guess(dir); got != tt.want {
			t.Errorf("%v: got %q, want %q", tt.files, got, tt.want)
		}
	}
}

// TestGuessFIFO: a FIFO named like a project file is not read (no hang).
func TestGuessFIFO(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "Makefile"), 0o644); err != nil {
		t.Skip(err)
	}
	if got, _ := Guess(dir); got != "" {
		t.Errorf("got %q", got)
	}
}

// TestConfigParses: the written config reads back as the commands read
// config files, with only verify_cmds set and every key known.
func TestConfigParses(t *testing.T) {
	cfg := cli.Config{}
	if err := cli.ParseConfig("config", []byte(Config("go test ./...", "go.mod")), cfg); err != nil {
		t.Fatal(err)
	}
	if len(cfg) != 1 || cfg["verify_cmds"].Value != "go test ./..." {
		t.Fatalf("got %v", cfg)
	}
	for _, l := range strings.Split(Config("", ""), "\n") {
		if len(l) > 80 && !strings.HasPrefix(l, "#worktree_path_template") {
			t.Errorf("line past 80 columns: %q", l)
		}
		if k, _, ok := strings.Cut(strings.TrimPrefix(l, "#"), "="); ok && !strings.Contains(k, " ") && !cli.KnownKey(k) {
			t.Errorf("unknown key %q", k)
		}
	}
}

// TASK.md was chmodded 0644 whatever the umask: with umask 077 on a shared
// machine the task was readable by every local user, with umask 002 in a
// group's repository not writable by the group. It is made as an editor
// makes a file: 0644 less the umask.
func TestTaskHonoursUmask(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	dir := t.TempDir()
	st, err := store.Open(filepath.Join(dir, ".loop"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Init(st, Options{Dir: dir}, func(string) (string, error) { return "", os.ErrNotExist })
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(r.Task); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("TASK.md: %v %v, want mode 0600 under umask 077", fi, err)
	}
}
