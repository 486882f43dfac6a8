package loopdrive

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/loopkit/loopkit/internal/cli"
)

// The unit runs `loop resume --interrupted --all-stores`; systemd itself
// checks it where it is installed (system mode: a user manager needs a
// session, and the syntax is the same).
func TestSystemdUnitVerifies(t *testing.T) {
	dir := t.TempDir()
	driver := filepath.Join(dir, "loop with space")
	os.WriteFile(driver, []byte("#!/bin/sh\n"), 0o755)
	unit := systemdUnit([]string{driver, "resume", "--interrupted", "--all-stores"}, []string{"PATH=/usr/bin:/a%b", "XDG_STATE_HOME=/s t"})
	if !strings.Contains(unit, `ExecStart="`+driver+`" "resume" "--interrupted" "--all-stores"`) ||
		!strings.Contains(unit, "\nEnvironment=\"PATH=/usr/bin:/a%%b\"\nEnvironment=\"XDG_STATE_HOME=/s t\"\n") {
		t.Fatalf("unit:\n%s", unit)
	}
	if _, err := exec.LookPath("systemd-analyze"); err != nil {
		t.Skip("no systemd-analyze here")
	}
	path := filepath.Join(dir, "loopkit-resume.service")
	os.WriteFile(path, []byte(unit), 0o600)
	out, err := exec.Command("systemd-analyze", "verify", path).CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
}

// The launchd agent is a property list whose ProgramArguments are the
// command, each word one string, escaped.
func TestLaunchdPlistParses(t *testing.T) {
	args := []string{"/opt/loop & <co>", "resume", "--interrupted", "--all-stores"}
	data := launchdPlist(args, []string{"PATH=/usr/bin", "XDG_STATE_HOME=/s&t"})
	var plist struct {
		XMLName xml.Name `xml:"plist"`
		Dict    struct {
			Inner []byte `xml:",innerxml"`
		} `xml:"dict"`
	}
	if err := xml.Unmarshal([]byte(data), &plist); err != nil {
		t.Fatalf("not XML: %v\n%s", err, data)
	}
	// walk the dict: key, value pairs
	dec := xml.NewDecoder(strings.NewReader(string(plist.Dict.Inner)))
	got := map[string][]string{}
	var key string
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			depth++
			if tok.Name.Local == "key" && depth == 1 {
				var k string
				dec.DecodeElement(&k, &tok)
				depth--
				key = k
			} else if tok.Name.Local == "string" && depth <= 2 {
				var s string
				dec.DecodeElement(&s, &tok)
				depth--
				got[key] = append(got[key], s)
			} else if tok.Name.Local == "true" {
				got[key] = append(got[key], "true")
			}
		case xml.EndElement:
			depth--
		}
	}
	if !reflect.DeepEqual(got["ProgramArguments"], args) || got["Label"][0] != "dev.loopkit.resume" || got["RunAtLoad"][0] != "true" {
		t.Fatalf("plist read back as %v\n%s", got, data)
	}
	if !strings.Contains(data, "<key>PATH</key>\n    <string>/usr/bin</string>\n    <key>XDG_STATE_HOME</key>\n    <string>/s&amp;t</string>") {
		t.Fatalf("plist environment:\n%s", data)
	}
	if p, err := exec.LookPath("plutil"); err == nil {
		path := filepath.Join(t.TempDir(), "a.plist")
		os.WriteFile(path, []byte(data), 0o600)
		if out, err := exec.Command(p, "-lint", path).CombinedOutput(); err != nil {
			t.Fatalf("plutil -lint: %v\n%s", err, out)
		}
	}
}

// A login's service manager starts with none of the shell's variables: the
// unit carries the XDG directories loopkit reads when they are set, or the
// resume at login finds none of the stores and kept settings (the unit
// carried PATH alone).
func TestUnitCarriesStateHome(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/home/p/state")
	t.Setenv("XDG_DATA_HOME", "")
	for _, kind := range []string{"systemd", "launchd"} {
		var out bytes.Buffer
		env := cli.NewEnv("loop-drive", nil, nil, &out, io.Discard)
		if err := printUnit(env, kind, "/bin/loop"); err != nil {
			t.Fatal(err)
		}
		env.Stdout.Flush()
		if !strings.Contains(out.String(), "/home/p/state") || strings.Contains(out.String(), "XDG_DATA_HOME") {
			t.Errorf("%s unit:\n%s", kind, out.String())
		}
	}
}

// TestSlotHolders: the wait for a slot names its holders in good English
// ("run a, b holds it" before).
func TestSlotHolders(t *testing.T) {
	if got := slotHolders([]string{"a"}); got != "run a holds it" {
		t.Errorf("one holder: %q", got)
	}
	if got := slotHolders([]string{"a", "b"}); got != "runs a, b hold them" {
		t.Errorf("two holders: %q", got)
	}
}

// TestXMLTextAsEncodingXML: xmlText escapes every string as
// xml.EscapeText does, bytes that are not UTF-8 and controls included.
func TestXMLTextAsEncodingXML(t *testing.T) {
	pieces := []string{"a", " ", "\"", "'", "&", "<", ">", "\t", "\n", "\r", "\x00", "\x1f", "\x7f", "é", "\ufffd", "\ufffe", "\uffff", "\U0001F600", "\xff", "\xed\xa0\x80", "%", "]]>"}
	cases := []string{"", "/opt/loop & <co>", "XDG_STATE_HOME=/s&t"}
	for _, a := range pieces {
		for _, b := range pieces {
			for _, c := range pieces {
				cases = append(cases, a+b+c)
			}
		}
	}
	for _, c := range cases {
		var want strings.Builder
		xml.EscapeText(&want, []byte(c))
		if got := xmlText(c); got != want.String() {
			t.Fatalf("xmlText(%q) = %q, want %q", c, got, want.String())
		}
	}
}
