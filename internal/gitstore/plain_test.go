package gitstore

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// A folder outside git is snapshotted through loopkit's own index: the
// step's base, the tree after it, the change between them and a checkout
// work as in a repository, the store left out. (Issue 24: every iteration
// said "0 files".)
func TestPlainFolder(t *testing.T) {
	dir, runDir, spool := plainFolder(t, "one\n")
	write(t, filepath.Join(dir, StoreName), "secret", "never in a tree\n", 0o600)

	step := func(n int, edit func()) []string {
		t.Helper()
		odb := filepath.Join(spool, "s.git")
		base, used, ok, err := Base(dir, odb, runDir, nil)
		if err != nil || !ok || !used || base == "" {
			t.Fatalf("base %q used %v ok %v: %v", base, used, ok, err)
		}
		edit()
		where, err := LocateAny(dir)
		if err != nil || !where.Plain {
			t.Fatalf("LocateAny: %+v %v", where, err)
		}
		repo, tree, err := AfterStep(runDir, where, odb, "")
		if err != nil {
			t.Fatal(err)
		}
		os.RemoveAll(odb)
		if err := repo.SetIteration(n, tree, base); err != nil {
			t.Fatal(err)
		}
		cs, err := repo.Changes(base, tree)
		if err != nil {
			t.Fatal(err)
		}
		return Paths(cs)
	}
	if got := step(1, func() {
		write(t, dir, "a.txt", "one\ntwo\n", 0o644)
		write(t, dir, "b.txt", "new\n", 0o644)
	}); !reflect.DeepEqual(got, []string{"a.txt", "b.txt"}) {
		t.Errorf("iteration 1 changed %v", got)
	}
	// the second step starts from the run's own index (its stat cache)
	if got := step(2, func() { os.Remove(filepath.Join(dir, "b.txt")) }); !reflect.DeepEqual(got, []string{"b.txt"}) {
		t.Errorf("iteration 2 changed %v", got)
	}
	repo, err := Open(runDir)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := repo.Tree(1)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "co")
	if err := repo.Checkout(tree, out); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(out)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if !reflect.DeepEqual(names, []string{"a.txt", "b.txt"}) {
		t.Errorf("checkout holds %v", names)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		t.Error("the folder became a repository")
	}
}

// A repository git refuses is not taken for a plain folder.
func TestLocateAnyKeepsRepositories(t *testing.T) {
	repo := gitRepo(t)
	os.WriteFile(filepath.Join(repo, ".git", "HEAD"), []byte("garbage"), 0o644)
	if w, err := LocateAny(repo); err == nil {
		t.Errorf("a broken repository located as %+v", w)
	}
}

// A run's first iteration in a folder without git hashes each file once:
// the tree after the step starts from the base's index, so only what the
// step changed is read again. A clean filter (global config, which loopkit
// honours) logs every file git hashes. (Issue 24: 7.2 s on 10,000 files.)
func TestPlainFirstIterationHashesOnce(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(dir))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	log := filepath.Join(t.TempDir(), "hashed")
	config := filepath.Join(t.TempDir(), "gitconfig")
	write(t, filepath.Dir(config), "gitconfig", "[filter \"count\"]\n\tclean = \"echo %f >>'"+log+"'; cat\"\n", 0o644)
	t.Setenv("GIT_CONFIG_GLOBAL", config)
	write(t, dir, ".gitattributes", "* filter=count\n", 0o644)
	var names []string
	for _, sub := range []string{"a", "b"} {
		os.Mkdir(filepath.Join(dir, sub), 0o755)
		for i := range 5 {
			name := filepath.Join(sub, string(rune('0'+i))+".txt")
			write(t, dir, name, name+"\n", 0o644)
			names = append(names, name)
		}
	}
	// older than any index written here: none is racily clean (git
	// hashes such a file again whatever the stat cache says)
	old := time.Now().Add(-time.Hour)
	for _, n := range append(names, ".gitattributes") {
		os.Chtimes(filepath.Join(dir, n), old, old)
	}
	// nor is any ctime as new as the index (see smudgeIndex): the files
	// are a second older than the snapshot
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(ctimeMargin + time.Second)))
	runDir := filepath.Join(dir, StoreName, "runs", "r")
	os.MkdirAll(runDir, 0o700)
	odb := filepath.Join(dir, StoreName, "spool", "s.git")

	base, _, ok, err := Base(dir, odb, runDir, nil)
	if err != nil || !ok {
		t.Fatalf("base: %v", err)
	}
	write(t, dir, "a/0.txt", "edited\n", 0o644)
	write(t, dir, "c.txt", "new\n", 0o644)
	where, err := LocateAny(dir)
	if err != nil {
		t.Fatal(err)
	}
	repo, tree, err := AfterStep(runDir, where, odb, "")
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(log)
	count := map[string]int{}
	for _, f := range strings.Fields(string(data)) {
		count[f]++
	}
	for _, n := range append(names[1:], ".gitattributes") {
		if count[filepath.ToSlash(n)] != 1 {
			t.Errorf("%s hashed %d times, want once: %v", n, count[n], count)
		}
	}
	// a file written as the index is, git hashes again to be sure
	if count["a/0.txt"] < 2 || count["c.txt"] < 1 {
		t.Errorf("the step's edits hashed %v", count)
	}
	cs, err := repo.Changes(base, tree)
	if err != nil {
		t.Fatal(err)
	}
	if got := Paths(cs); !reflect.DeepEqual(got, []string{"a/0.txt", "c.txt"}) {
		t.Errorf("changed %v", got)
	}
	// the same tree as a snapshot from no index at all
	fresh, err := create(filepath.Join(t.TempDir(), "fresh"), "", "")
	if err != nil {
		t.Fatal(err)
	}
	if again, err := fresh.Snapshot(where); err != nil || again != tree {
		t.Errorf("a fresh snapshot is %s (%v), the seeded one %s", again, err, tree)
	}
}

// plainFolder is a folder outside git holding a.txt (text), git's config
// kept from the machine's, and the store's run "r" and spool folders in
// it: where the snapshot tests of a folder without git start.
func plainFolder(t *testing.T, text string) (dir, runDir, spool string) {
	t.Helper()
	dir = t.TempDir()
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(dir))
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(t.TempDir(), "gitconfig"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	write(t, dir, "a.txt", text, 0o644)
	runDir = filepath.Join(dir, StoreName, "runs", "r")
	spool = filepath.Join(dir, StoreName, "spool")
	for _, d := range []string{runDir, spool} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return dir, runDir, spool
}
