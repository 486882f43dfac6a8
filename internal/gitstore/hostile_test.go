package gitstore

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// within runs fn and fails the test if it has not returned in a minute: a
// read that waits on a FIFO never would (the goroutine is left behind).
func within(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("%s: still waiting after a minute (a FIFO read?)", what)
	}
}

// plant replaces path by a FIFO, a link to /etc/passwd, or a file of
// size bytes, as an agent that writes where it likes could.
func plant(t *testing.T, path, kind string, size int64) {
	t.Helper()
	os.Remove(path)
	os.MkdirAll(filepath.Dir(path), 0o755)
	var err error
	switch kind {
	case "fifo":
		err = syscall.Mkfifo(path, 0o600)
	case "link":
		err = os.Symlink("/etc/passwd", path)
	case "huge":
		var f *os.File
		if f, err = os.Create(path); err == nil {
			err = f.Truncate(size) // sparse: no disk spent
			f.Close()
		}
	}
	if err != nil {
		t.Fatal(err)
	}
}

// The files of a run's private git directory (the agent can reach it) and
// the user's index it seeds from are read as safefile reads them: a FIFO,
// a link out of place or a huge file is refused, never waited on or
// followed. Before, each of these read through os.Open/os.ReadFile.
func TestPrivateDirHostileFiles(t *testing.T) {
	repo := committedRepo(t, "a\n")
	where, err := Locate(repo)
	if err != nil {
		t.Fatal(err)
	}
	runDir := filepath.Join(t.TempDir(), "r")
	r, _, err := AfterStep(runDir, where, "", "")
	if err != nil {
		t.Fatal(err)
	}
	write(t, repo, "a.txt", "b\n", 0o644)
	tree, err := r.Snapshot(where)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.SetIteration(1, tree, ""); err != nil {
		t.Fatal(err)
	}
	commit, err := r.Commit(1)
	if err != nil {
		t.Fatal(err)
	}
	ref := filepath.Join(r.GitDir, "refs", "iterations", "1")
	alt := filepath.Join(r.GitDir, "objects", "info", "alternates")
	obj := filepath.Join(r.GitDir, "objects", commit[:2], commit[2:])
	for _, kind := range []string{"fifo", "link", "huge"} {
		t.Run(kind, func(t *testing.T) {
			plant(t, ref, kind, 1<<30)
			within(t, "Commit", func() {
				if id, err := r.Commit(1); err == nil {
					t.Errorf("iteration ref as a %s read: %s", kind, id)
				}
			})
			plant(t, alt, kind, 1<<30)
			within(t, "Known", func() {
				if w, ok := Known(runDir, repo); ok {
					t.Errorf("alternates as a %s read: %+v", kind, w)
				}
			})
			within(t, "objects", func() {
				fresh := &Repo{GitDir: r.GitDir}
				fresh.objects()
			})
			os.MkdirAll(filepath.Dir(obj), 0o755)
			plant(t, obj, kind, 1<<30)
			within(t, "HasCommit", func() {
				if (&Repo{GitDir: r.GitDir}).HasCommit(commit) {
					t.Errorf("a %s taken for the commit", kind)
				}
			})
			// the user's index, copied to seed a new run's first base (a
			// snapshot after a step never reads it: TestForgedUserIndex...;
			// git itself resolves a link there, to the file Base reads)
			if kind == "link" {
				return
			}
			plant(t, where.Index, kind, 2<<30)
			within(t, "seed", func() {
				_, _, _, err := Base(repo, filepath.Join(t.TempDir(), "odb"), filepath.Join(t.TempDir(), "r2"), nil)
				if err == nil || !strings.Contains(err.Error(), where.Index) {
					t.Errorf("index as a %s: %v, want it named and refused", kind, err)
				}
			})
		})
	}
}

// A .gitattributes the agent writes can make git add fail on a file for
// good (UTF-16 without a byte order mark): every snapshot of the run was
// lost with it. The file is recorded as its bytes are, the rest as git
// add takes it.
func TestSnapshotOfAnUnconvertibleFile(t *testing.T) {
	repo := committedRepo(t, "a\n")
	write(t, repo, ".gitattributes", "*.txt working-tree-encoding=UTF-16\n", 0o644)
	write(t, repo, "bad.txt", "abc", 0o755)
	write(t, repo, "sub dir\nx.txt", "odd", 0o644)
	write(t, repo, "b.go", "package b\n", 0o644)
	r, tree, _, _ := afterStep(t, repo)
	for name, want := range map[string]string{"bad.txt": "abc", "sub dir\nx.txt": "odd", "b.go": "package b\n", ".gitattributes": "*.txt working-tree-encoding=UTF-16\n"} {
		out, err := r.git().run("cat-file", "blob", tree+":"+name)
		if err != nil || string(out) != want {
			t.Errorf("%q in the snapshot: %q, %v; want %q", name, out, err, want)
		}
	}
	if out, _ := r.git().run("ls-tree", tree, "bad.txt"); !strings.HasPrefix(string(out), "100755 ") {
		t.Errorf("bad.txt's mode: %q", out)
	}
}

// Ignore rules the agent writes keep new files out of a snapshot, as they
// keep them out of a commit; they never turn a file the snapshot before
// held into one that is gone. A `*` in .git/info/exclude (out of the work
// tree, so out of every diff) made the run's first snapshot after a clean
// base, which starts from no index, an empty tree: the record said every
// file was deleted, and hid the edit the agent made. The same when the
// agent removed the run's index between iterations.
func TestIgnoreRulesHideNoTrackedFile(t *testing.T) {
	repo := committedRepo(t, "a\n")
	commit(t, repo, "b.txt", "b\n")
	head := strings.TrimSpace(run(t, repo, "git", "rev-parse", "HEAD"))
	runDir := filepath.Join(t.TempDir(), "r")
	odb := filepath.Join(t.TempDir(), "x.git")
	base, _, ok, err := Base(repo, odb, runDir, nil)
	if err != nil || !ok || base != head {
		t.Fatalf("clean base %q %v %v, want HEAD %s", base, ok, err, head)
	}
	where, err := Locate(repo)
	if err != nil {
		t.Fatal(err)
	}
	changed := func(from, to string, r *Repo) string {
		t.Helper()
		cs, err := r.Changes(from, to)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(Paths(cs), " ")
	}
	// the agent's step: every new file ignored, a.txt edited
	write(t, filepath.Join(repo, ".git", "info"), "exclude", "*\n", 0o644)
	write(t, repo, "a.txt", "edited\n", 0o644)
	write(t, repo, "new.txt", "hidden\n", 0o644)
	r, tree, err := AfterStep(runDir, where, "", base)
	if err != nil {
		t.Fatal(err)
	}
	if got := changed(base, tree, r); got != "a.txt" {
		t.Errorf("first iteration changed %q, want a.txt", got)
	}
	if err := r.SetIteration(1, tree, base); err != nil {
		t.Fatal(err)
	}
	// the next step's base, after the agent removed the run's index
	os.Remove(filepath.Join(runDir, Dir, "index"))
	odb2 := filepath.Join(t.TempDir(), "y.git")
	base2, used, _, err := Base(repo, odb2, runDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if used {
		if err := r.Import(odb2); err != nil {
			t.Fatal(err)
		}
	}
	if got := changed(tree, base2, r); got != "" {
		t.Errorf("the next base differs from the last iteration's tree in %q, want nothing", got)
	}
	// and the snapshot after it, once more without the run's index
	write(t, repo, "b.txt", "edited\n", 0o644)
	os.Remove(filepath.Join(runDir, Dir, "index"))
	objects := ""
	if used {
		objects = odb2
		os.Remove(filepath.Join(odb2, "index"))
	}
	r, tree2, err := AfterStep(runDir, where, objects, base2)
	if err != nil {
		t.Fatal(err)
	}
	if got := changed(base2, tree2, r); got != "b.txt" {
		t.Errorf("second iteration changed %q, want b.txt", got)
	}
}
