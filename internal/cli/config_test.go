package cli

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loopkit/loopkit/internal/runconfig"
)

func TestParseConfig(t *testing.T) {
	cfg := Config{}
	err := ParseConfig("c", []byte("# comment\n\nkeep_last = 5\nverify_cmds=\"go test ./...\"\n  keep_days=0  \n"), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if cfg["keep_last"].Value != "5" || cfg["verify_cmds"].Value != "go test ./..." || cfg["keep_days"].Value != "0" || cfg["keep_days"].Line != 5 {
		t.Fatalf("cfg = %+v", cfg)
	}
	// a file saved with a byte-order mark: its first key is still known
	bom := Config{}
	if err := ParseConfig("c", []byte("\ufeffiterations=1\r\nkeep_last=2\r\n"), bom); err != nil || bom["iterations"].Value != "1" || bom["keep_last"].Value != "2" {
		t.Fatalf("with a BOM and CRLF: %v %+v", err, bom)
	}
	// a value not UTF-8 (Latin-1, or a quoted \xff) would reach the run's
	// commands changed, through the run's copy of the config, which is
	// JSON: the run ended saying the agent had changed the config
	for _, bad := range []string{"novalue\n", "=x\n", "k=\"unterminated\n", "model=caf\xe9\n", "k=\"\\xff\"\n", "k\xff=1\n"} {
		err := ParseConfig("f.conf", []byte(bad), Config{})
		var ce *ConfigError
		if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), "f.conf:1:") {
			t.Fatalf("%q: err = %v", bad, err)
		}
	}
	// a bad quote says what a quoted value is, with the fix
	if err := ParseConfig("f.conf", []byte(`model="opus" # best`), Config{}); err == nil || !strings.Contains(err.Error(), `want "TEXT" in Go syntax`) {
		t.Fatalf("a comment after a quoted value: %v", err)
	}
	// as docs/cli.md says: the last of a key given twice, a # after a value kept
	twice := Config{}
	if err := ParseConfig("f", []byte("model=a\nmodel=b # c\n"), twice); err != nil || twice["model"].Value != "b # c" || twice["model"].Line != 2 {
		t.Fatalf("a key given twice: %v %+v", err, twice)
	}
}

// --config/LOOP_CONFIG's file is over the store's config, whichever name
// each gives a setting: the store's iterations=2 beat a named file's
// max_iterations=1 (an older name), since the seed's name is read first.
func TestConfigLaterFileWinsByEitherName(t *testing.T) {
	cfg := Config{}
	if err := ParseConfig("store", []byte("iterations=2\nmerge_target=a\n"), cfg); err != nil {
		t.Fatal(err)
	}
	if err := ParseConfig("named", []byte("max_iterations=1\nmerge_target_branch=b\n"), cfg); err != nil {
		t.Fatal(err)
	}
	set, err := runconfig.Resolve(runconfig.Sources{Config: cfg.Values()})
	if err != nil {
		t.Fatal(err)
	}
	if set.MaxIterations != 1 || set.MergeTarget != "b" {
		t.Errorf("max_iterations %d, merge_target %q; want the named file's 1, b", set.MaxIterations, set.MergeTarget)
	}
	// in one file the seed's name still wins
	one := Config{}
	if err := ParseConfig("one", []byte("iterations=3\nmax_iterations=4\n"), one); err != nil {
		t.Fatal(err)
	}
	if set, _ := runconfig.Resolve(runconfig.Sources{Config: one.Values()}); set.MaxIterations != 3 {
		t.Errorf("one file: max_iterations %d, want 3", set.MaxIterations)
	}
}

func TestParseDuration(t *testing.T) {
	for in, want := range map[string]string{"90": "1m30s", "1.5": "1.5s", "5m": "5m0s", "0": "0s"} {
		d, err := ParseDuration(in)
		if err != nil || d.String() != want {
			t.Fatalf("%s: %v %v", in, d, err)
		}
	}
	for _, bad := range []string{"-1", "soon", "", "-5m"} {
		if _, err := ParseDuration(bad); err == nil {
			t.Fatalf("%q accepted", bad)
		}
	}
}

func FuzzParseConfig(f *testing.F) {
	f.Add([]byte("keep_last=5\n# c\nverify_cmds=\"go test\"\n"))
	f.Add([]byte("=\n"))
	f.Add([]byte("k=\"\\x\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg := Config{}
		if err := ParseConfig("f", data, cfg); err != nil {
			var ce *ConfigError
			if !errors.As(err, &ce) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("bad error %v", err)
			}
			return
		}
		for k, s := range cfg {
			if k == "" || strings.ContainsAny(k, "\n=") || s.Line < 1 {
				t.Fatalf("bad setting %q=%+v", k, s)
			}
		}
	})
}

func TestQuote(t *testing.T) {
	if got := Quote([]string{"go", "test", "./...", "it's", ""}); got != `go test ./... 'it'\''s' ''` {
		t.Fatalf("Quote = %s", got)
	}
}

// The store's config is the agent's to write: a FIFO there (a plain read
// waits for a writer forever), a link to /etc/passwd, a huge file are each
// refused with an error naming the file, at once; a missing one is fine.
func TestLoadConfigHostile(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config")
	if _, err := LoadConfig(cfg, ""); err != nil {
		t.Fatalf("missing store config: %v", err)
	}
	for kind, plant := range map[string]func() error{
		"fifo": func() error { return syscall.Mkfifo(cfg, 0o600) },
		"link": func() error { return os.Symlink("/etc/passwd", cfg) },
		"huge": func() error { return os.WriteFile(cfg, bytes.Repeat([]byte("# x\n"), MaxConfigBytes/4+1), 0o600) },
	} {
		os.Remove(cfg)
		if err := plant(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := LoadConfig(cfg, "")
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), cfg) {
				t.Errorf("%s: %v, want it refused, naming the file", kind, err)
			}
		case <-time.After(time.Minute):
			t.Fatalf("%s: LoadConfig still waiting after a minute", kind)
		}
		// the same through --config
		if _, err := LoadConfig("", cfg); err == nil {
			t.Errorf("%s as --config: read", kind)
		}
	}
}

// The run's copy of its config removed while the run goes on (a runtime
// directory emptied at logout, a cleaner of old files): its commands read
// the files again, as before the copy was kept, instead of failing every
// one of them and leaving the run running with no driver.
func TestLoadConfigCopyGone(t *testing.T) {
	dir := t.TempDir()
	storeConfig := filepath.Join(dir, "config")
	if err := os.WriteFile(storeConfig, []byte("keep_last=3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(RunConfigEnv, filepath.Join(dir, "gone.json"))
	cfg, err := LoadConfig(storeConfig, "")
	if err != nil || cfg["keep_last"].Value != "3" {
		t.Fatalf("LoadConfig with the copy gone: %v, %v", cfg, err)
	}
}
