package hooks

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// The README's --on-event examples are illustrations: they cannot reach a
// desktop or Slack here, but each command line and each hook in it must be
// valid shell.
func TestReadmeHookExamples(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	start := strings.Index(doc, "## Left alone overnight")
	if start < 0 {
		t.Fatal("README has no hooks section")
	}
	block := regexp.MustCompile("(?s)```sh\n(.*?)```").FindStringSubmatch(doc[start:])
	if block == nil {
		t.Fatal("no sh block in the hooks section")
	}
	hook := regexp.MustCompile(`--on-event '([^']*)'`)
	n := 0
	for _, line := range strings.Split(block[1], "\n") {
		if !strings.HasPrefix(line, "loop run") {
			continue
		}
		m := hook.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("example without --on-event: %s", line)
			continue
		}
		for _, src := range []string{line, m[1]} {
			if out, err := exec.Command("bash", "-n", "-c", src).CombinedOutput(); err != nil {
				t.Errorf("bash -n %q: %v\n%s", src, err, out)
			}
		}
		n++
	}
	if n != 3 {
		t.Errorf("%d examples, want 3 (notification, Slack, git commit)", n)
	}
}
