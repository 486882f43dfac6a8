package loopdrive

import (
	"encoding/xml"
	"fmt"
	"os"
	"strings"

	"github.com/loopkit/loopkit/internal/cli"
)

// printUnit prints a systemd user unit or a launchd agent that runs
// `loop resume --interrupted --all-stores` at login. PATH is today's, so
// that the agents' CLIs are found as in this shell.
func printUnit(env *cli.Env, kind, driver string) error {
	args := []string{driver, "resume", "--interrupted", "--all-stores"}
	path := os.Getenv("PATH")
	var out string
	if kind == "systemd" {
		out = systemdUnit(args, path)
	} else {
		out = launchdPlist(args, path)
	}
	_, err := env.Stdout.WriteString(out)
	return err
}

// systemdUnit: KillSignal=SIGKILL, because a driver that gets SIGTERM
// cancels its run, and a run stopped by a logout should stay interrupted,
// to be resumed at the next login.
func systemdUnit(args []string, path string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = systemdQuote(a)
	}
	return fmt.Sprintf(`# loopkit: resume interrupted loops at login.
# Install: save as ~/.config/systemd/user/loopkit-resume.service, then
#   systemctl --user daemon-reload
#   systemctl --user enable loopkit-resume.service
[Unit]
Description=Resume interrupted loopkit runs

[Service]
Type=simple
Environment=%s
ExecStart=%s
KillSignal=SIGKILL

[Install]
WantedBy=default.target
`, systemdQuote("PATH="+path), strings.Join(q, " "))
}

// systemdQuote quotes a word for a systemd unit line: in double quotes,
// with \ and " escaped and % doubled (a specifier otherwise).
func systemdQuote(s string) string {
	s = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "%", "%%", "\n", " ").Replace(s)
	return `"` + s + `"`
}

func launchdPlist(args []string, path string) string {
	esc := func(s string) string {
		var b strings.Builder
		xml.EscapeText(&b, []byte(s))
		return b.String()
	}
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
	fmt.Fprintf(&b, `  </array>
  <key>EnvironmentVariables</key>
  <dict>
    <key>PATH</key>
    <string>%s</string>
  </dict>
  <key>RunAtLoad</key>
  <true/>
</dict>
</plist>
`, esc(path))
	return b.String()
}
