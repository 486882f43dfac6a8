package watchdog

import (
	"strings"

	"github.com/loopkit/loopkit/internal/lazyre"
	"github.com/loopkit/loopkit/internal/record"
)

// What changes between two runs of the same failing test without the failure
// being any different: colours, timings, temporary paths, addresses.
var (
	ansi     = lazyre.New(`\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)`)
	tempPath = lazyre.New(`(/private)?(/tmp|/var/folders|/var/tmp|/dev/shm)(/[^\s:'"()\[\],]*)?`)
	hexAddr  = lazyre.New(`\b0x[0-9a-fA-F]+\b`)
	stamp    = lazyre.New(`\b\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)?|\b\d\d:\d\d:\d\d(\.\d+)?\b`)
	duration = lazyre.New(`\b\d+(\.\d+)?(ns|µs|us|ms|s|m|h)(\d+(\.\d+)?(ns|µs|us|ms|s|m))*\b`)
	spaces   = lazyre.New(`[ \t]+`)
	// failureLine picks the lines that say what failed, so passing tests
	// and progress chatter around the failure do not make two failures differ.
	failureLine = lazyre.New(`(?i)(error|fail|panic|fatal|exception|undefined|cannot|timed out|traceback|unexpected|assert|denied|not found|no such|want|expected|got)|[\w./-]+\.\w+:\d+`)
)

// Normalize strips from one line of output what varies between two runs of
// the same failure: ANSI codes, temporary paths, hex addresses, timestamps
// and durations, and runs of blanks.
func Normalize(s string) string {
	s = ansi.ReplaceAllString(s, "")
	s = tempPath.ReplaceAllString(s, "<tmp>")
	s = hexAddr.ReplaceAllString(s, "<addr>")
	s = stamp.ReplaceAllString(s, "<time>")
	s = duration.ReplaceAllString(s, "<dur>")
	s = spaces.ReplaceAllString(s, " ")
	return strings.TrimSpace(s)
}

// located is a failure line that names a file and line: the most telling.
var located = lazyre.New(`[\w./-]+\.\w+:\d+`)

// FailureLine is the line of an iteration's failure a person should see
// first: one naming a file and line, else the first that looks like a
// failure, normalised and kept short.
func FailureLine(it *record.IterationLog) string {
	lines := strings.Split(Failure(it), "\n")
	if len(lines) < 2 {
		return lines[0]
	}
	best := ""
	for _, l := range lines[1:] {
		if located.MatchString(l) {
			best = l
			break
		}
		if best == "" && failureLine.MatchString(l) {
			best = l
		}
	}
	if best == "" {
		best = lines[1]
	}
	if best == "" { // no output at all: the status and exit code say it
		return lines[0]
	}
	if h := record.HeadChars(best, 200); h != best {
		best = h + "…"
	}
	return best
}

// Failure is an iteration's failure reduced to what identifies it: its
// status and exit code, the error it recorded and the normalised output
// lines that look like failures (all output lines when none do). Empty for
// a passing iteration.
func Failure(it *record.IterationLog) string {
	if it.Status == record.StatusPass {
		return ""
	}
	var all, picked []string
	for _, out := range []string{it.Stdout, it.Stderr} {
		for _, line := range strings.Split(out, "\n") {
			n := Normalize(line)
			if n == "" {
				continue
			}
			all = append(all, n)
			if failureLine.MatchString(n) {
				picked = append(picked, n)
			}
		}
	}
	if len(picked) == 0 {
		picked = all
	}
	head := it.Status
	if it.Error != nil {
		head += " " + Normalize(*it.Error)
	}
	if it.TimedOut {
		head += " timed out"
	} else {
		head += " exit " + itoa(it.ExitCode)
	}
	return head + "\n" + strings.Join(picked, "\n")
}
