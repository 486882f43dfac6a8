package proc

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/loopkit/loopkit/internal/lookpath"
)

// RunShell runs line as `sh -c line` would, for spec's Args left unset. A
// line of plain words (no quoting, expansion, redirection, operator,
// assignment or shell builtin: `go test ./...`, `sh check.sh`) is started
// directly, with the same program, arguments and exit status and one
// process fewer (the validation runs every iteration); if it cannot start,
// sh runs the line after all and says why, as it always did.
func RunShell(spec Spec, line string) (*Result, error) {
	if !NeedsShell(line, spec.Env) {
		spec.Args, _ = PlainWords(line)
		res, err := Run(spec)
		if err != nil || res.PID != 0 || startShebang(spec) != "" { // sh would say only "not found"
			return res, err
		}
		if _, err := lookpath.Find("sh"); err != nil {
			return res, nil // no sh to say it: this names the program, not sh
		}
	}
	spec.Args = []string{"sh", "-c", line}
	return Run(spec)
}

// NeedsShell: RunShell runs line through sh, for a child with env (nil:
// this process's): it is more than plain words, or PATH is sh's to search.
// Without an sh on PATH (a distroless image, PATH=/opt/tool/bin) such a
// line cannot run at all.
func NeedsShell(line string, env []string) bool {
	words, ok := PlainWords(line)
	return !ok || (!strings.Contains(words[0], "/") && !pathAbsolute(env))
}

// pathAbsolute: every entry of PATH is an absolute folder. exec.LookPath
// reads PATH here, and an empty or relative entry from this process's
// directory, while sh reads the command's own, in its directory: such a
// PATH is left to sh. A child's env that sets PATH another way is too.
func pathAbsolute(env []string) bool {
	path := os.Getenv("PATH")
	if env != nil && !slices.Contains(env, "PATH="+path) {
		return false
	}
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			return false
		}
	}
	return true
}

// PlainWords splits line into its words when sh would take each literally
// and run the first as a program found on PATH; ok is false for anything
// else, which is left to sh.
func PlainWords(line string) (words []string, ok bool) {
	for _, c := range []byte(line) {
		if !plainByte(c) && c != ' ' && c != '\t' {
			return nil, false
		}
	}
	words = strings.Fields(line)
	if len(words) == 0 || strings.Contains(words[0], "=") || shellOwns(words[0]) {
		return nil, false
	}
	return words, true
}

// plainByte: a byte sh takes as itself anywhere in a word. Left out are
// quotes, $, `, \, globs, ~, #, !, braces, operators, newlines and all
// non-ASCII.
func plainByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("_-./,:=+@%", c) >= 0
}

// shellOwns: a first word sh runs itself (reserved words and the builtins
// of dash, bash (macOS's sh) and busybox ash), whatever PATH holds. A
// switch, not a map: nothing to build at start.
func shellOwns(word string) bool {
	switch word {
	case "if", "then", "else", "elif", "fi", "case", "esac", "for", "while",
		"until", "do", "done", "in", "function", "select", "time", "coproc",
		".", ":", "alias", "bg", "break", "builtin", "cd", "chdir", "command",
		"continue", "declare", "echo", "eval", "exec", "exit", "export", "false",
		"fc", "fg", "getopts", "hash", "jobs", "kill", "let", "local", "printf",
		"pwd", "read", "readonly", "return", "set", "shift", "source", "test",
		"times", "trap", "true", "type", "typeset", "ulimit", "umask", "unalias",
		"unset", "wait", "bind", "caller", "compgen", "complete", "compopt", "dirs",
		"disown", "enable", "help", "history", "logout", "mapfile", "popd", "pushd",
		"readarray", "shopt", "suspend":
		return true
	}
	return false
}
