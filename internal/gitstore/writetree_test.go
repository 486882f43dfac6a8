package gitstore

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The trees written from the index are git's own: over random work trees
// (nested directories, exec bits, links, a nested repository as a gitlink,
// eol and filter attributes, an LFS pointer, a file over 8 MiB) and the
// user's index in version 2, 3 (a skip-worktree entry), 4 and split (left
// to git), every snapshot's tree is the one `git add -A && git write-tree`
// gives in an index of git's own over the same work tree.
func TestWriteTreeAsGit(t *testing.T) {
	for _, variant := range []string{"v2", "v3", "v4", "split"} {
		t.Run(variant, func(t *testing.T) { writeTreeAsGit(t, variant) })
	}
}

func writeTreeAsGit(t *testing.T, variant string) {
	repo, subCommit := repoWithGitlink(t)
	write(t, repo, "seed.txt", "seed\n", 0o644)
	write(t, repo, ".gitattributes", "*.crlf text eol=crlf\n*.auto text=auto\n*.bin filter=lfs diff=lfs merge=lfs -text\n", 0o644)
	write(t, repo, "p.bin", "version https://git-lfs.github.com/spec/v1\noid sha256:"+strings.Repeat("ab", 32)+"\nsize 12\n", 0o644)
	os.MkdirAll(filepath.Join(repo, "d", "e"), 0o755)
	write(t, repo, "d/e/keep.txt", "keep\n", 0o644)
	if variant == "v2" { // once: git add streams it into a pack
		big := make([]byte, bigFile+1)
		for i := range big {
			big[i] = byte('a' + i%26)
		}
		if err := os.WriteFile(filepath.Join(repo, "large.dat"), big, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run(t, repo, "git", "add", ".")
	run(t, repo, "git", "commit", "-qm", "init")
	switch variant {
	case "v3":
		run(t, repo, "git", "update-index", "--skip-worktree", "seed.txt")
	case "v4":
		run(t, repo, "git", "update-index", "--index-version", "4")
	case "split":
		run(t, repo, "git", "update-index", "--split-index")
	}
	where, err := Locate(repo)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Create(t.TempDir(), where.Objects)
	if err != nil {
		t.Fatal(err)
	}
	// git's side: its own index (seeded from the user's, for its stat
	// cache) and objects, the user's read as alternates.
	ref := t.TempDir()
	idx, _ := os.ReadFile(filepath.Join(repo, ".git", "index"))
	os.WriteFile(filepath.Join(ref, "index"), idx, 0o600)
	gitTree := func() string {
		var out string
		for _, args := range [][]string{{"add", "-A", "--", "."}, {"write-tree"}} {
			cmd := exec.Command("git", args...)
			cmd.Dir = repo
			cmd.Env = append(os.Environ(), "GIT_INDEX_FILE="+filepath.Join(ref, "index"),
				"GIT_OBJECT_DIRECTORY="+ref, "GIT_ALTERNATE_OBJECT_DIRECTORIES="+where.Objects)
			b, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("git %v: %v\n%s", args, err, b)
			}
			out = strings.TrimSpace(string(b))
		}
		return out
	}

	rng := rand.New(rand.NewPCG(3, uint64(len(variant))))
	mutate := randomEdits(repo, rng, []string{"a", "a.txt", "a-b", "b.crlf", "c.auto", "d", "d/x", "d/y.go", "d/e/f", "d.x", "q.bin", "z"}, subCommit)
	iterations := 12
	if testing.Short() {
		iterations = 6
	}
	for i := range iterations {
		if i > 0 {
			mutate()
		}
		var tree string
		trace := filepath.Join(t.TempDir(), "trace")
		t.Setenv("GIT_TRACE", trace)
		tree, err = r.Snapshot(where)
		os.Unsetenv("GIT_TRACE")
		data, _ := os.ReadFile(trace)
		byGit := strings.Contains(string(data), "built-in: git write-tree")
		if err != nil {
			t.Fatal(err)
		}
		if want := gitTree(); tree != want {
			t.Fatalf("snapshot %d: tree %s, git write-tree %s\n%s", i, tree, want, run(t, repo, "git", "status", "--porcelain"))
		}
		// git add alone; a split index is left to git write-tree
		if byGit != (variant == "split") {
			t.Errorf("snapshot %d: git write-tree ran: %v", i, byGit)
		}
	}
}
