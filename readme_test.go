package loopkit_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeExamples runs the README's examples, so the README cannot drift
// from what the commands do. The mechanism, for whoever adds an example:
//
//   - Every ```sh block of README.md is checked with `bash -n`.
//   - A block is then run with bash, as one script, in a fresh git copy of
//     testdata/demo (cwd at its root, the store its .loop), with the loop-*
//     commands on PATH, `scripts/` linked in, and stand-ins on PATH for what
//     needs a network, credentials or a desktop: `claude` and `codex` are
//     scripts/demo-agent, `less` is cat. The run fails on any error line of
//     a loopkit command ("loop-view: ...", "hint: see ...") or "command not
//     found"; exit statuses are not checked (a CI example fails on purpose).
//   - Mark a block `<!-- readme-test: syntax -->` on the line before its
//     fence when it cannot run here (placeholders like RUN, make targets);
//     it is then only syntax-checked. A block under any other `<!-- ... -->`
//     line belongs to the test that comment names and is skipped here.
//   - Blocks run in README order and share the workspace, so a later block
//     may use the runs an earlier one recorded.
func TestReadmeExamples(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("jq not installed (the README uses it); .ci/run installs it")
	}
	root, _ := os.Getwd()
	blocks := readmeBlocks(t, filepath.Join(root, "README.md"))
	if len(blocks) < 3 {
		t.Fatalf("found %d sh blocks in README.md", len(blocks))
	}
	work := t.TempDir()
	stubs := filepath.Join(work, ".stubs")
	os.MkdirAll(stubs, 0o755)
	for name, body := range map[string]string{
		"claude": "exec '" + filepath.Join(root, "scripts/demo-agent") + "'\n",
		"codex":  "exec '" + filepath.Join(root, "scripts/demo-agent") + "'\n",
		"less":   "exec cat \"$@\"\n",
	} {
		os.WriteFile(filepath.Join(stubs, name), []byte("#!/bin/sh\n"+body), 0o755)
	}
	sh := func(script string) (string, error) {
		c := exec.Command("bash", "-c", script)
		c.Dir = work
		view, _ := exec.LookPath("loop-view")
		c.Env = append(withoutEnv(os.Environ(), "LOOP_STORE", "LOOP_RUN_ID", "LOOP_CONFIG"),
			"PATH="+stubs+":"+os.Getenv("PATH"), "LOOP_BIN="+filepath.Dir(view), "NO_COLOR=1",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@loopkit.invalid", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@loopkit.invalid")
		out, err := c.CombinedOutput()
		return string(out), err
	}
	setup := "cp -R '" + filepath.Join(root, "testdata/demo") + "'/. . && ln -s '" + filepath.Join(root, "scripts") + "' scripts && " +
		"printf 'test:\\n\\tgo test ./...\\n' > Makefile && printf '.stubs\\nscripts\\n' > .git-info-exclude && " +
		"git init -q && cp .git-info-exclude .git/info/exclude && git add -A && git commit -qm demo"
	if out, err := sh(setup); err != nil {
		t.Fatalf("setup: %v\n%s", err, out)
	}
	usage := regexp.MustCompile(`(?m)^hint: see '|^loop-[a-z]+: |^loop: |command not found|unknown flag`)
	ran := 0
	for _, b := range blocks {
		if out, err := sh("set -n\n" + b.text); err != nil {
			t.Errorf("README.md:%d: not valid bash: %v\n%s", b.line, err, out)
			continue
		}
		if b.mark != "" {
			continue
		}
		ran++
		out, _ := sh(b.text)
		if m := usage.FindString(out); m != "" {
			t.Errorf("README.md:%d: example misused a command (%q):\n%s\n--- output:\n%s", b.line, m, b.text, out)
		}
		t.Logf("README.md:%d ran:\n%s", b.line, out)
	}
	if ran < 2 {
		t.Fatalf("ran only %d README blocks", ran)
	}
	// The composed iteration landed in the store.
	if out, err := sh("loop-view logs demo"); err != nil || !strings.Contains(out, "[1] go test ./...") {
		t.Errorf("the README's pipeline recorded nothing: %v\n%s", err, out)
	}
}

type readmeBlock struct {
	line int
	mark string // the <!-- ... --> line before the fence, "" when none
	text string
}

func readmeBlocks(t *testing.T, path string) []readmeBlock {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var blocks []readmeBlock
	var cur *readmeBlock
	prev := ""
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		switch {
		case cur == nil && l == "```sh":
			cur = &readmeBlock{line: n + 1}
			if strings.HasPrefix(prev, "<!--") {
				cur.mark = prev
			}
		case cur != nil && l == "```":
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			cur.text += l + "\n"
		}
		prev = l
	}
	return blocks
}

// TestReadmeHooksQuiet: the README's --on-event examples that act on one
// event exit 0 on every other event, so the driver does not warn of a
// failed hook on each of them.
func TestReadmeHooksQuiet(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	hook := regexp.MustCompile(`--on-event '(\[ "\$LOOP_EVENT"[^']*)'`)
	found := hook.FindAllStringSubmatch(string(doc), -1)
	if len(found) == 0 {
		t.Fatal("no --on-event example on one event in README.md")
	}
	for _, m := range found {
		for _, ev := range []string{"stuck", "failed", "rate_limited", "watchdog"} {
			c := exec.Command("sh", "-c", m[1])
			c.Dir = t.TempDir()
			c.Env = append(os.Environ(), "LOOP_EVENT="+ev, "LOOP_RUN_ID=r1")
			if out, err := c.CombinedOutput(); err != nil {
				t.Errorf("on %s, %q: %v %s", ev, m[1], err, out)
			}
		}
	}
}

// withoutEnv is env without the variables names.
func withoutEnv(env []string, names ...string) []string {
	var out []string
outer:
	for _, kv := range env {
		for _, n := range names {
			if strings.HasPrefix(kv, n+"=") {
				continue outer
			}
		}
		out = append(out, kv)
	}
	return out
}
