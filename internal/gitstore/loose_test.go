package gitstore

import (
	"bytes"
	"compress/zlib"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The changes read from loose objects are git's own, over random work
// trees: nested directories, exec bits, links, a file turned directory and
// back, a file turned link, a nested repository (a gitlink) and deletions.
func TestLooseChangesAsGit(t *testing.T) {
	repo, subCommit := repoWithGitlink(t)
	write(t, repo, "seed.txt", "seed\n", 0o644)
	run(t, repo, "git", "add", "seed.txt")
	run(t, repo, "git", "commit", "-qm", "init")
	where, _ := Locate(repo)
	r, err := Create(t.TempDir(), where.Objects)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	mutate := randomEdits(repo, rng, []string{"a", "a.txt", "a-b", "b", "d", "d/x", "d/y.go", "d/e/f", "d.x", "z"}, subCommit)
	var trees []string
	base := strings.TrimSpace(run(t, repo, "git", "rev-parse", "HEAD"))
	for range 40 {
		mutate()
		tree, err := r.Snapshot(where)
		if err != nil {
			t.Fatal(err)
		}
		trees = append(trees, tree)
	}
	froms := append([]string{base, EmptyTree}, trees...)
	checked := 0
	for i, from := range froms {
		to := trees[(i*7)%len(trees)]
		want, err := r.gitChanges(from, to)
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.objects().changes(from, to)
		if err != nil {
			t.Fatalf("%s..%s from loose objects: %v", from, to, err)
		}
		if len(got) == 0 && len(want) == 0 {
			continue
		}
		checked++
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s..%s:\n got %+v\nwant %+v", from, to, got, want)
		}
	}
	if checked < 20 {
		t.Errorf("only %d diffs compared", checked)
	}
}

// Objects git packed are not loose: Changes and the sizes ask git, and
// agree; loose ones take no git process at all.
func TestLooseFallsBackToGit(t *testing.T) {
	repo := gitRepo(t)
	write(t, repo, "a.txt", "a\n", 0o644)
	os.Mkdir(filepath.Join(repo, "d"), 0o755)
	write(t, repo, "d/b.txt", "b\n", 0o644)
	run(t, repo, "git", "add", ".")
	run(t, repo, "git", "commit", "-qm", "init")
	run(t, repo, "git", "repack", "-qad")
	run(t, repo, "git", "prune-packed")
	head := strings.TrimSpace(run(t, repo, "git", "rev-parse", "HEAD"))
	write(t, repo, "d/b.txt", "b changed\n", 0o644)
	r, where, tree1 := snapshotRepo(t, repo)
	if _, err := r.objects().changes(head, tree1); err == nil {
		t.Fatal("a packed HEAD was read as loose")
	}
	cs, err := r.Changes(head, tree1)
	if err != nil || !reflect.DeepEqual(Paths(cs), []string{"d/b.txt"}) {
		t.Fatalf("changes from a packed HEAD: %+v %v", cs, err)
	}
	write(t, repo, "d/b.txt", "b changed twice, longer\n", 0o644)
	tree2, _ := r.Snapshot(where)
	var big int64
	if n := gitCalls(t, func() {
		cs, err = r.Changes(tree1, tree2)
		big, _ = r.largest(cs)
	}); n != 0 || err != nil || len(cs) != 1 {
		t.Errorf("loose changes took %d git processes (%+v, %v)", n, cs, err)
	}
	if big != int64(len("b changed twice, longer\n")) {
		t.Errorf("largest = %d", big)
	}
	r2, _ := Open(filepath.Dir(r.GitDir))
	if n, err := r2.largest(append(cs, Change{OldMode: "100644", NewMode: "100644",
		OldID: strings.TrimSpace(run(t, repo, "git", "rev-parse", "HEAD:a.txt")), NewID: cs[0].NewID})); err != nil || n != big {
		t.Errorf("largest with a packed blob = %d, %v", n, err)
	}
}

// Objects are read, not verified: a crafted tree that names itself, or a
// file with no header, is left to git instead of read for ever.
func TestLooseHostileObjects(t *testing.T) {
	dir := t.TempDir()
	db := &looseDB{dirs: []string{dir}}
	put := func(id string, data []byte) {
		var z bytes.Buffer
		zw := zlib.NewWriter(&z)
		zw.Write(data)
		zw.Close()
		os.MkdirAll(filepath.Join(dir, id[:2]), 0o700)
		if err := os.WriteFile(filepath.Join(dir, id[:2], id[2:]), z.Bytes(), 0o400); err != nil {
			t.Fatal(err)
		}
	}
	self := strings.Repeat("ab", 20)
	raw, _ := hex.DecodeString(self)
	entry := append([]byte("40000 d\x00"), raw...)
	put(self, append([]byte(fmt.Sprintf("tree %d\x00", len(entry))), entry...))
	if _, err := db.changes(EmptyTree, self); err == nil {
		t.Error("a tree naming itself was walked to the end")
	}
	nohead := strings.Repeat("cd", 20)
	put(nohead, bytes.Repeat([]byte("x"), 1<<20))
	if _, err := db.size(nohead); err == nil {
		t.Error("an object without a header has a size")
	}
}

// repoWithGitlink is a repository with a nested one at sub (a gitlink once
// added) and the function that commits text in it.
func repoWithGitlink(t *testing.T) (repo string, subCommit func(text string)) {
	t.Helper()
	repo = gitRepo(t)
	sub := filepath.Join(repo, "sub")
	os.Mkdir(sub, 0o755)
	run(t, sub, "git", "init", "-q")
	subCommit = func(text string) {
		write(t, sub, "s.txt", text, 0o644)
		run(t, sub, "git", "add", ".")
		run(t, sub, "git", "commit", "-qm", text)
	}
	subCommit("one")
	return repo, subCommit
}

// randomEdits returns a function making one to four random edits among
// names in repo: a deletion, a file written (exec bit or not, CRLF in
// it), a symlink, an exec bit flipped, a new commit of the nested
// repository, the folder d/e removed. A file in the way of a folder goes.
func randomEdits(repo string, rng *rand.Rand, names []string, subCommit func(string)) func() {
	parentDir := func(p string) {
		for d := filepath.Dir(p); d != repo; d = filepath.Dir(d) {
			if fi, err := os.Lstat(d); err == nil && !fi.IsDir() {
				os.Remove(d)
			}
		}
		os.MkdirAll(filepath.Dir(p), 0o755)
	}
	return func() {
		for range 1 + rng.IntN(4) {
			name := names[rng.IntN(len(names))]
			p := filepath.Join(repo, name)
			switch rng.IntN(7) {
			case 0:
				os.RemoveAll(p)
			case 1, 2:
				os.RemoveAll(p) // a directory of that name goes
				parentDir(p)
				mode := os.FileMode(0o644)
				if rng.IntN(3) == 0 {
					mode = 0o755
				}
				os.WriteFile(p, []byte(fmt.Sprintf("line %d\r\nnext\n", rng.IntN(3))), mode)
				os.Chmod(p, mode)
			case 3:
				os.RemoveAll(p)
				parentDir(p)
				os.Symlink(fmt.Sprintf("target%d", rng.IntN(2)), p)
			case 4:
				if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
					os.Chmod(p, fi.Mode().Perm()^0o111)
				}
			case 5:
				subCommit(fmt.Sprintf("v%d", rng.IntN(1000)))
			case 6:
				os.RemoveAll(filepath.Join(repo, "d", "e"))
			}
		}
	}
}
