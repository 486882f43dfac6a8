package loopdrive

import (
	"fmt"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/loopkit/loopkit/internal/cli"
)

// printUnit prints a systemd user unit or a launchd agent that runs
// `loop resume --interrupted --all-stores` at login, with today's
// unitEnv.
func printUnit(env *cli.Env, kind, driver string) error {
	args := []string{driver, "resume", "--interrupted", "--all-stores"}
	var out string
	if kind == "systemd" {
		out = systemdUnit(args, unitEnv())
	} else {
		out = launchdPlist(args, unitEnv())
	}
	_, err := env.Stdout.WriteString(out)
	return err
}

// unitEnv is what the login's resume needs of this shell's environment,
// as NAME=value: PATH, so that the agents' CLIs are found as here, and
// the XDG directories loopkit reads when they are set, for a manager at
// login starts with none of a shell's: without XDG_STATE_HOME the resume
// would find neither the stores nor the settings the runs were kept with.
func unitEnv() []string {
	env := []string{"PATH=" + os.Getenv("PATH")}
	for _, name := range []string{"XDG_STATE_HOME", "XDG_DATA_HOME"} {
		if v := os.Getenv(name); v != "" {
			env = append(env, name+"="+v)
		}
	}
	return env
}

// systemdUnit: KillSignal=SIGKILL, because a driver that gets SIGTERM
// cancels its run, and a run stopped by a logout should stay interrupted,
// to be resumed at the next login.
func systemdUnit(args, env []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = systemdQuote(a)
	}
	e := make([]string, len(env))
	for i, kv := range env {
		e[i] = "Environment=" + systemdQuote(kv)
	}
	return fmt.Sprintf(`# loopkit: resume interrupted loops at login.
# Install: save as ~/.config/systemd/user/loopkit-resume.service, then
#   systemctl --user daemon-reload
#   systemctl --user enable loopkit-resume.service
[Unit]
Description=Resume interrupted loopkit runs

[Service]
Type=simple
%s
ExecStart=%s
KillSignal=SIGKILL

[Install]
WantedBy=default.target
`, strings.Join(e, "\n"), strings.Join(q, " "))
}

// systemdQuote quotes a word for a systemd unit line: in double quotes,
// with \ and " escaped and % doubled (a specifier otherwise).
func systemdQuote(s string) string {
	s = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "%", "%%", "\n", " ").Replace(s)
	return `"` + s + `"`
}

func launchdPlist(args, env []string) string {
	esc := xmlText
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<!-- loopkit: resume interrupted loops at login.
     Install: save as ~/Library/LaunchAgents/dev.loopkit.resume.plist, then
     launchctl load ~/Library/LaunchAgents/dev.loopkit.resume.plist -->
<plist version="1.0">
<dict>
  <key>Label</key>
  <string>dev.loopkit.resume</string>
  <key>ProgramArguments</key>
  <array>
`)
	for _, a := range args {
		fmt.Fprintf(&b, "    <string>%s</string>\n", esc(a))
	}
	b.WriteString("  </array>\n  <key>EnvironmentVariables</key>\n  <dict>\n")
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		fmt.Fprintf(&b, "    <key>%s</key>\n    <string>%s</string>\n", esc(k), esc(v))
	}
	b.WriteString("  </dict>\n  <key>RunAtLoad</key>\n  <true/>\n</dict>\n</plist>\n")
	return b.String()
}

// xmlText is s escaped as encoding/xml's EscapeText escapes it (quotes,
// &, <, >, tab, newline and CR as references; what XML cannot hold as
// U+FFFD). encoding/xml's package initialisation cost every start of
// loop-drive for this one use; TestXMLTextAsEncodingXML compares them.
func xmlText(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch {
		case r == '"':
			b.WriteString("&#34;")
		case r == '\'':
			b.WriteString("&#39;")
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '\t':
			b.WriteString("&#x9;")
		case r == '\n':
			b.WriteString("&#xA;")
		case r == '\r':
			b.WriteString("&#xD;")
		case r == utf8.RuneError && n == 1, !(r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF):
			b.WriteString("\uFFFD")
		default:
			b.WriteString(s[i-n : i])
		}
	}
	return b.String()
}
