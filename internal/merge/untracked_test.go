package merge

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The agent commits its own .env and local/settings.yml (git add -f past
// the ignore rules); the person's ignored copies in the primary hold a
// key. The merge must stop before anything moves, naming both.
func TestIgnoredFilesAreNeverOverwritten(t *testing.T) {
	for _, strategy := range []string{Merge, Squash} {
		t.Run(strategy, func(t *testing.T) {
			r := newRepo(t)
			r.write(r.primary, ".gitignore", ".env\nlocal/\n")
			r.git(r.primary, "add", ".gitignore")
			r.git(r.primary, "commit", "-q", "-m", "ignore secrets")
			r.git(r.wt, "merge", "-q", "main")
			r.write(r.primary, ".env", "ANTHROPIC_API_KEY=sk-ant-person-real-key\n")
			os.MkdirAll(filepath.Join(r.primary, "local"), 0o755)
			r.write(r.primary, "local/settings.yml", "token: the person's\n")
			r.write(r.wt, ".env", "ANTHROPIC_API_KEY=agent\n")
			os.MkdirAll(filepath.Join(r.wt, "local"), 0o755)
			r.write(r.wt, "local/settings.yml", "token: agent\n")
			r.git(r.wt, "add", "-A")
			r.git(r.wt, "add", "-f", ".env", "local/settings.yml")
			r.git(r.wt, "commit", "-q", "-m", "the agent's settings")
			before := r.state()
			_, err := Run(r.spec(strategy))
			var me *Error
			if !errors.As(err, &me) || me.Kind != KindUntracked || strings.Join(me.Paths, ",") != ".env,local/settings.yml" {
				t.Fatalf("err = %v, want the untracked .env and local/settings.yml", err)
			}
			if !strings.Contains(err.Error(), "would overwrite untracked or ignored files in the primary worktree") ||
				!strings.Contains(err.Error(), "(.env, local/settings.yml): move them aside, then resume") {
				t.Errorf("message: %v", err)
			}
			if after := r.state(); after != before {
				t.Errorf("primary changed:\n%s\nwant\n%s", after, before)
			}
			if got, _ := os.ReadFile(filepath.Join(r.primary, ".env")); string(got) != "ANTHROPIC_API_KEY=sk-ant-person-real-key\n" {
				t.Errorf(".env is now %q", got)
			}
			if got, _ := os.ReadFile(filepath.Join(r.primary, "local/settings.yml")); string(got) != "token: the person's\n" {
				t.Errorf("local/settings.yml is now %q", got)
			}
		})
	}
}

// An ignored file standing where the merge needs a directory stops it too.
func TestIgnoredFileInPlaceOfADirectory(t *testing.T) {
	r := newRepo(t)
	r.write(r.primary, ".gitignore", "cache\n")
	r.git(r.primary, "add", ".gitignore")
	r.git(r.primary, "commit", "-q", "-m", "ignore")
	r.git(r.wt, "merge", "-q", "main")
	r.write(r.primary, "cache", "a person's cache file\n")
	os.MkdirAll(filepath.Join(r.wt, "cache"), 0o755)
	r.write(r.wt, "cache/x", "x\n")
	r.git(r.wt, "add", "-f", "cache/x")
	r.git(r.wt, "commit", "-q", "-m", "cache dir")
	_, err := Run(r.spec(Merge))
	var me *Error
	if !errors.As(err, &me) || me.Kind != KindUntracked || strings.Join(me.Paths, ",") != "cache" {
		t.Fatalf("err = %v, want the ignored file cache", err)
	}
}

// Untracked files the merge does not write are no obstacle; a run that
// un-ignores files by changing .gitignore says which.
func TestUnignoredFilesAreNamed(t *testing.T) {
	r := newRepo(t)
	r.write(r.primary, ".gitignore", "*.log\n.env\n")
	r.git(r.primary, "add", ".gitignore")
	r.git(r.primary, "commit", "-q", "-m", "ignore")
	r.git(r.wt, "merge", "-q", "main")
	r.write(r.primary, "debug.log", "a person's log\n")
	r.write(r.primary, ".env", "KEY=x\n")
	r.write(r.primary, "notes.txt", "untracked, kept\n")
	r.write(r.wt, ".gitignore", ".env\n")
	res, err := Run(r.spec(Squash))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(res.Unignored, ","); got != "debug.log" {
		t.Errorf("unignored %q, want debug.log", got)
	}
	if got, _ := os.ReadFile(filepath.Join(r.primary, "notes.txt")); string(got) != "untracked, kept\n" {
		t.Errorf("notes.txt is now %q", got)
	}
}
