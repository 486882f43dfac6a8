package cli

import (
	"errors"
	"strings"
	"testing"
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
	for _, bad := range []string{"novalue\n", "=x\n", "k=\"unterminated\n"} {
		err := ParseConfig("f.conf", []byte(bad), Config{})
		var ce *ConfigError
		if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), "f.conf:1:") {
			t.Fatalf("%q: err = %v", bad, err)
		}
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
