// Package worktree creates the git worktree a run works in: a new branch
// <prefix><slug> from the base branch, at a path rendered from a template.
package worktree

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/loopkit/loopkit/internal/gitrun"
	"github.com/loopkit/loopkit/internal/gitstate"
	"github.com/loopkit/loopkit/internal/lazyre"
)

// Defaults of the settings.
const (
	DefaultPrefix   = "run/"
	DefaultTemplate = "../{{ repo }}.{{ run_branch | sanitize }}"
	FallbackBase    = "main"
)

var placeholder = lazyre.New(`\{\{\s*([a-z_]+)\s*(\|\s*([a-z_]+)\s*)?\}\}`)

// Path renders a worktree path template: {{ repo }} is the repository's
// directory name, {{ run_branch }} the branch, {{ run_branch | sanitize }}
// the branch with every character outside [A-Za-z0-9._-] made '-'. A
// relative result is relative to the repository's top directory.
func Path(template, top, branch string) (string, error) {
	var bad error
	out := placeholder.ReplaceAllStringFunc(template, func(m string) string {
		p := placeholder.FindStringSubmatch(m)
		var v string
		switch p[1] {
		case "repo":
			v = filepath.Base(top)
		case "run_branch":
			v = branch
		default:
			bad = fmt.Errorf("worktree_path_template: unknown variable %q (want repo or run_branch)", p[1])
		}
		switch p[3] {
		case "":
		case "sanitize":
			v = Sanitize(v)
		default:
			bad = fmt.Errorf("worktree_path_template: unknown filter %q (want sanitize)", p[3])
		}
		return v
	})
	if bad != nil {
		return "", bad
	}
	if strings.Contains(out, "{{") || strings.Contains(out, "}}") {
		return "", fmt.Errorf("worktree_path_template %q: a {{ ... }} it cannot read", template)
	}
	if strings.TrimSpace(out) == "" {
		return "", fmt.Errorf("worktree_path_template %q renders to nothing", template)
	}
	if !filepath.IsAbs(out) {
		out = filepath.Join(top, out)
	}
	return filepath.Clean(out), nil
}

// Sanitize makes a branch name safe as one path element.
func Sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			return r
		}
		return '-'
	}, s)
}

// Slug is a branch-safe form of a run's label: lower case, runs of other
// characters made one '-'.
func Slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		} else {
			dash = true
		}
	}
	out := b.String()
	if len(out) > 48 {
		out = strings.TrimRight(out[:48], "-")
	}
	if out == "" {
		return "run"
	}
	return out
}

// DefaultBranch is the run's default base: on a detached HEAD (the commit
// a CI job checked out) that commit, else the repository's default branch:
// origin's HEAD when it is known, else main or master when one exists,
// else FallbackBase.
func DefaultBranch(top string) string {
	if _, err := gitstate.Git(top, "symbolic-ref", "-q", "HEAD"); err != nil {
		if out, err := gitstate.Git(top, "rev-parse", "--verify", "-q", "HEAD^{commit}"); err == nil {
			return strings.TrimSpace(string(out))
		}
	}
	if out, err := gitstate.Git(top, "symbolic-ref", "-q", "--short", "refs/remotes/origin/HEAD"); err == nil {
		if b := strings.TrimPrefix(strings.TrimSpace(string(out)), "origin/"); b != "" {
			return b
		}
	}
	for _, b := range []string{"main", "master"} {
		if _, err := gitstate.Git(top, "show-ref", "--verify", "--quiet", "refs/heads/"+b); err == nil {
			return b
		}
	}
	return FallbackBase
}

// Spec is what a worktree is made from.
type Spec struct {
	Top      string // the repository's top directory
	Base     string // base branch ("" detects it)
	Prefix   string // branch prefix
	Slug     string // the run's slug
	Template string // path template
}

// Created is the worktree made. Warning says what of it is missing (its
// submodules, when they could not be checked out), "" when nothing is.
type Created struct {
	Path, Branch, Base string
	Warning            string
}

// Check says which of s's settings git would refuse (the path template,
// the branch name the prefix makes, the base), before anything is made:
// a run with one of them bad is then refused, never created and failed.
func Check(s Spec) error {
	if s.Base == "" {
		s.Base = DefaultBranch(s.Top)
	}
	branch := s.Prefix + "run"
	path, err := Path(s.Template, s.Top, branch)
	if err != nil {
		return err
	}
	if err := placeable(s.Template, path); err != nil {
		return err
	}
	if err := CheckBranch(s.Top, branch); err != nil {
		return fmt.Errorf("run_branch_prefix %q: %w", s.Prefix, err)
	}
	return checkBase(s)
}

// CheckBranch says why git would refuse name as a branch's (a name
// starting with '-' included: it would be read as an option).
func CheckBranch(top, name string) error {
	if _, err := gitstate.Git(top, "check-ref-format", "--branch", name); err != nil {
		return fmt.Errorf("%s is not a name git takes for a branch (see git check-ref-format)", name)
	}
	return nil
}

// checkBase: the base names a commit (a name starting with '-' is none,
// never an option of git's).
func checkBase(s Spec) error {
	if strings.HasPrefix(s.Base, "-") {
		return fmt.Errorf("base branch %q: not a commit in %s (set base_branch)", s.Base, s.Top)
	}
	if _, err := gitstate.Git(s.Top, "rev-parse", "--verify", "-q", s.Base+"^{commit}"); err != nil {
		if _, err := gitstate.Git(s.Top, "rev-parse", "--verify", "-q", "HEAD^{commit}"); err != nil {
			return fmt.Errorf("base branch %q: not a commit in %s, which has none yet (commit first)", s.Base, s.Top)
		}
		return fmt.Errorf("base branch %q: not a commit in %s (set base_branch)", s.Base, s.Top)
	}
	return nil
}

// Create makes the branch and the worktree, de-duplicating the branch
// with -2, -3, ... while the branch or the path already exists.
func Create(s Spec) (*Created, error) {
	if s.Base == "" {
		s.Base = DefaultBranch(s.Top)
	}
	if err := checkBase(s); err != nil {
		return nil, err
	}
	for n := 1; n < 1000; n++ {
		branch := s.Prefix + s.Slug
		if n > 1 {
			branch += "-" + strconv.Itoa(n)
		}
		path, err := Path(s.Template, s.Top, branch)
		if err != nil {
			return nil, err
		}
		if _, err := gitstate.Git(s.Top, "show-ref", "--verify", "--quiet", "refs/heads/"+branch); err == nil {
			continue
		}
		if _, err := os.Lstat(path); err == nil {
			continue
		}
		if _, err := gitstate.Git(s.Top, "worktree", "add", "-q", "-b", branch, path, s.Base); err != nil {
			// git made the branch before it failed to make the folder:
			// each retry would leave another run/<slug>-N behind
			gitstate.Git(s.Top, "branch", "-D", "-q", branch)
			return nil, err
		}
		return &Created{Path: path, Branch: branch, Base: s.Base, Warning: submodules(s.Top, path)}, nil
	}
	return nil, fmt.Errorf("no free branch name for %s%s", s.Prefix, s.Slug)
}

// submodules checks out in the new worktree wt the submodules the primary
// (top) has checked out, which git worktree add leaves empty: each is
// cloned from the primary's checkout (no network, no credentials), at the
// commit the base names. Nested submodules are not. It returns a warning
// when that failed, "" otherwise.
func submodules(top, wt string) string {
	if _, err := os.Lstat(filepath.Join(wt, ".gitmodules")); err != nil {
		return ""
	}
	out, err := gitstate.Git(wt, "config", "-f", ".gitmodules", "-z", "--get-regexp", `^submodule\..*\.path$`)
	if err != nil {
		return ""
	}
	var config, paths []string
	for _, kv := range strings.Split(string(out), "\x00") {
		key, path, ok := strings.Cut(kv, "\n")
		if !ok || path == "" {
			continue
		}
		name := strings.TrimSuffix(strings.TrimPrefix(key, "submodule."), ".path")
		if _, err := os.Lstat(filepath.Join(top, path, ".git")); err != nil {
			continue // not checked out in the primary either
		}
		config = append(config, "submodule."+name+".url="+filepath.Join(top, path))
		paths = append(paths, path)
	}
	if len(paths) == 0 {
		return ""
	}
	config = append(config, "protocol.file.allow=always")
	args := append([]string{"submodule", "update", "--init", "--"}, paths...)
	if _, err := (gitrun.Cmd{Dir: wt, Config: config}).Run(args...); err != nil {
		return fmt.Sprintf("the worktree's submodules (%s) are not checked out: %v", strings.Join(paths, ", "), err)
	}
	return ""
}
