package loopvalidate

import (
	"bytes"
	"context"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/loopkit/loopkit/internal/lookpath"
	"github.com/loopkit/loopkit/internal/proc"
)

// cannotRun: a validation that exited 126 or 127 ends with sh's line saying
// it could not start a command. The line is in the person's language and
// in their sh's words (dash "not found", bash "No such file or directory",
// German bash "Kommando nicht gefunden"), so it is compared with what the
// same sh, in the same environment and folder, says of a command that
// cannot exist, a path that does not, or a file that cannot run.
func cannotRun(code int, stderr, dir string) bool {
	var probes []string
	switch code {
	case 127:
		probes = []string{"loopkit-no-such-command-" + strconv.FormatInt(time.Now().UnixNano(), 36), "/nonexistent-loopkit/probe"}
	case 126:
		probes = []string{"/dev/null"}
	default:
		return false
	}
	last := lastLine(stderr)
	for _, p := range probes {
		if w := wording(p, dir); w != "" && strings.Contains(last, w) {
			return true
		}
	}
	return false
}

// wording is what sh -c NAME says after NAME (": not found" → "not found"),
// "" when it says nothing of the kind within a second.
func wording(name, dir string) string {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, lookpath.Command("sh"), "-c", name)
	cmd.Dir, cmd.Env = dir, proc.ChildEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if cmd.Run() == nil {
		return ""
	}
	_, after, ok := strings.Cut(lastLine(stderr.String()), name)
	if !ok {
		return ""
	}
	w := strings.Trim(after, ":. \t\u00a0")
	if len(w) < 3 { // a word, not a colon that any line has
		return ""
	}
	return w
}

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	return s[strings.LastIndexByte(s, '\n')+1:]
}
