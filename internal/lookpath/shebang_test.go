package lookpath

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A script saved with CRLF line ends is there and executable, yet the
// kernel answers ENOENT for "/bin/sh\r", which shells and exec report as
// the script "not found".
func TestShebang(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, text, want string }{
		{"lf", "#!/bin/sh\r\nexit 0\r\n", `looks for "/bin/sh\r": save it with LF line ends (dos2unix `},
		{"env", "#!/usr/bin/env python3\r\n", `looks for "python3\r"`},
		{"arg", "#!/bin/sh -e\r\n", `looks for "-e\r"`},
		{"missing", "#!/no/such/interp -x\n", "its #! interpreter /no/such/interp is not there"},
		{"fine", "#!/bin/sh\nexit 0\r\n", ""},
		{"relative", "#!sh\n", ""},
		{"no line", "exit 0\r\n", ""},
		{"empty", "", ""},
		{"bare", "#!\r\n", `looks for "\r"`},
		// ENOEXEC: sh ran a bash script as its own ("[[: not found")
		{"bom", "\ufeff#!/bin/bash\n[[ -f x ]]\n", "it starts with a byte-order mark (UTF-8 with BOM"},
		{"bom text", "\ufeffecho hi\n", ""},
	} {
		p := filepath.Join(dir, tc.name)
		os.WriteFile(p, []byte(tc.text), 0o755)
		got := Shebang(p)
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("%s: Shebang = %q, want %q", tc.name, got, tc.want)
		}
	}
	if got := Shebang(filepath.Join(dir, "gone")); got != "" {
		t.Errorf("a missing file: %q", got)
	}
}
