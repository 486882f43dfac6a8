package gitstore

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func gitRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(dir, "gitconfig"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, kv := range []string{"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x"} {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	repo := filepath.Join(dir, "repo")
	os.Mkdir(repo, 0o755)
	run(t, repo, "git", "init", "-q")
	return repo
}

// committedRepo is a repository whose one commit holds a.txt.
func committedRepo(t *testing.T, text string) string {
	t.Helper()
	repo := gitRepo(t)
	commit(t, repo, "a.txt", text)
	return repo
}

// commit writes name and commits everything in repo.
func commit(t *testing.T, repo, name, text string) {
	t.Helper()
	write(t, repo, name, text, 0o644)
	run(t, repo, "git", "add", ".")
	run(t, repo, "git", "commit", "-qm", "init")
}

func run(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
	return string(out)
}

func write(t *testing.T, dir, name, text string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), mode); err != nil {
		t.Fatal(err)
	}
}

// untouched is what the user's repository looks like to git: it must be
// the same after the store snapshots, diffs and checks out its trees.
func untouched(t *testing.T, repo string) string {
	t.Helper()
	var b strings.Builder
	for _, args := range [][]string{
		{"git", "status", "--porcelain", "--untracked-files=all"},
		{"git", "for-each-ref"},
		{"git", "count-objects", "-v"},
		{"git", "stash", "list"},
	} {
		b.WriteString(run(t, repo, args...))
	}
	return b.String()
}

// The life of a run's trees: the step's base goes to its own object
// database, is imported into the run's, each iteration's tree is recorded,
// any two can be compared and one checked out; the user's repository gets
// no object, ref or index change through all of it.
func TestTreesNeverTouchTheUserRepository(t *testing.T) {
	repo := gitRepo(t)
	write(t, repo, "a.txt", "a\n", 0o644)
	write(t, repo, "run.sh", "echo hi\n", 0o755)
	run(t, repo, "git", "add", ".")
	run(t, repo, "git", "commit", "-qm", "init")
	write(t, repo, "a.txt", "a dirty before the step\n", 0o644)
	write(t, repo, "u.txt", "untracked before\n", 0o644)
	write(t, repo, ".gitignore", "ignored.txt\n", 0o644)
	write(t, repo, "ignored.txt", "never recorded\n", 0o644)
	before := untouched(t, repo)
	store := t.TempDir()

	odb := filepath.Join(store, "spool", "1-2-ab.step.git")
	base, used, ok, err := Base(repo, odb, "", nil)
	if err != nil || !ok || !used || len(base) != 40 {
		t.Fatalf("Base: %q used %v ok %v err %v", base, used, ok, err)
	}
	if got := untouched(t, repo); got != before {
		t.Fatalf("Base changed the user's repository:\n%s\nwas:\n%s", got, before)
	}

	r, where, runDir := importBase(t, repo, store, odb)
	os.RemoveAll(odb) // the spool entry is dropped after the commit
	write(t, repo, "b.txt", "new from the agent\n", 0o644)
	write(t, repo, "run.sh", "echo changed\n", 0o755)
	tree1, err := r.Snapshot(where)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.SetIteration(1, tree1, base); err != nil {
		t.Fatal(err)
	}
	write(t, repo, "c.txt", "iteration two\n", 0o644)
	tree2, err := r.Snapshot(where)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.SetIteration(2, tree2, ""); err != nil {
		t.Fatal(err)
	}

	r, err = Open(runDir)
	if err != nil {
		t.Fatal(err)
	}
	from, err := r.Base(1)
	if err != nil || from == "" {
		t.Fatalf("Base(1) %q %v", from, err)
	}
	to, _ := r.Tree(1)
	cs, err := r.Changes(from, to)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := Paths(cs), []string{"b.txt", "run.sh"}; !reflect.DeepEqual(got, want) {
		t.Errorf("changes of iteration 1: %q, want %q (a.txt and u.txt were there before the step)", got, want)
	}
	var d bytes.Buffer
	t2, _ := r.Tree(2)
	if err := r.Diff(&d, to, t2, "--stat"); err != nil || !strings.Contains(d.String(), "c.txt") || strings.Contains(d.String(), "b.txt") {
		t.Errorf("diff 1..2 --stat: %q %v", d.String(), err)
	}
	if _, err := r.Tree(3); err == nil {
		t.Error("Tree(3) of a run with 2 iterations")
	}

	out := filepath.Join(t.TempDir(), "co")
	if err := r.Checkout(to, out); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(out, "b.txt")); string(data) != "new from the agent\n" {
		t.Errorf("checked out b.txt: %q", data)
	}
	if fi, err := os.Stat(filepath.Join(out, "run.sh")); err != nil || fi.Mode()&0o100 == 0 {
		t.Errorf("run.sh lost its exec bit: %v %v", fi.Mode(), err)
	}
	for _, name := range []string{"c.txt", "ignored.txt"} {
		if _, err := os.Stat(filepath.Join(out, name)); err == nil {
			t.Errorf("%s checked out of iteration 1", name)
		}
	}
	if err := r.Checkout(to, out); err == nil {
		t.Error("checkout into a non-empty directory")
	}

	now := untouched(t, repo)
	// The work tree changed (b.txt, c.txt, run.sh): compare the refs and objects only.
	if refsAndObjects(now) != refsAndObjects(before) {
		t.Errorf("the user's refs or objects changed:\n%s\nwas:\n%s", now, before)
	}
}

func refsAndObjects(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if len(l) > 3 && (l[2] == ' ' && (l[0] == '?' || l[0] == ' ' || l[0] == 'M' || l[0] == 'A')) {
			continue // a status line
		}
		keep = append(keep, l)
	}
	return strings.Join(keep, "\n")
}

func TestCleanBaseIsHead(t *testing.T) {
	repo := committedRepo(t, "a\n")
	odb := filepath.Join(t.TempDir(), "x.git")
	base, used, ok, err := Base(repo, odb, "", nil)
	if err != nil || !ok || used || base != strings.TrimSpace(run(t, repo, "git", "rev-parse", "HEAD")) {
		t.Fatalf("base %q used %v ok %v err %v", base, used, ok, err)
	}
	if _, err := os.Stat(odb); err == nil {
		t.Error("a clean tree needs no object database, yet one was made")
	}
}

func TestBaseOutsideGit(t *testing.T) {
	t.Setenv("GIT_CEILING_DIRECTORIES", os.TempDir())
	if _, _, ok, err := Base(t.TempDir(), "", "", nil); ok || err != nil {
		t.Errorf("ok %v err %v", ok, err)
	}
}

// Past the limit, changes.patch keeps a note and the --stat summary.
func TestPatchLimit(t *testing.T) {
	repo := committedRepo(t, "a\n")
	base := strings.TrimSpace(run(t, repo, "git", "rev-parse", "HEAD"))
	write(t, repo, "big.txt", strings.Repeat("a line of text\n", 1000), 0o644)
	r, _, tree := snapshotRepo(t, repo)
	cs, _ := r.Changes(base, tree)
	for _, tc := range []struct {
		limit   int64
		summary bool
	}{{1 << 20, false}, {1000, true}} {
		f, err := os.Create(filepath.Join(t.TempDir(), "changes.patch"))
		if err != nil {
			t.Fatal(err)
		}
		res, err := r.WritePatch(f, base, tree, cs, tc.limit, "# note\n")
		f.Close()
		data, _ := os.ReadFile(f.Name())
		if err != nil || res.Summary != tc.summary || int64(len(data)) != res.Bytes {
			t.Fatalf("limit %d: %+v %v (%d bytes)", tc.limit, res, err, len(data))
		}
		if tc.summary && (!strings.HasPrefix(string(data), "# note\n") || !strings.Contains(string(data), "big.txt | 1000 +")) {
			t.Errorf("summary: %q", data)
		}
		if !tc.summary && !strings.Contains(string(data), "+a line of text") {
			t.Errorf("patch: %.200q", data)
		}
	}
}

// On a branch with no commit yet, a dirty tree's base is a commit without
// a parent, and a tree with nothing in it is still a tree.
func TestBaseOnUnbornBranch(t *testing.T) {
	repo := gitRepo(t)
	write(t, repo, "a.txt", "a\n", 0o644)
	odb := filepath.Join(t.TempDir(), "x.git")
	base, used, ok, err := Base(repo, odb, "", nil)
	if err != nil || !ok || !used || len(base) != 40 {
		t.Fatalf("base %q used %v ok %v err %v", base, used, ok, err)
	}
	w, err := Locate(repo)
	if err != nil || w.Head != "" || w.Top == "" || w.Objects == "" || w.Index == "" {
		t.Fatalf("Locate on an unborn branch: %+v %v", w, err)
	}
}

// gitCalls counts the git processes fn starts (GIT_TRACE names each one).
func gitCalls(t *testing.T, fn func()) int {
	t.Helper()
	trace := filepath.Join(t.TempDir(), "trace")
	t.Setenv("GIT_TRACE", trace)
	fn()
	os.Unsetenv("GIT_TRACE")
	data, _ := os.ReadFile(trace)
	return strings.Count(string(data), "trace: built-in: git ")
}

// Each git process costs milliseconds of every iteration: the step's base
// is one rev-parse and the snapshot (add; the trees without git), with the
// cleanliness test taken from the snapshot itself and the commit of a
// dirty tree written without git.
func TestBaseGitCalls(t *testing.T) {
	repo := committedRepo(t, "a\n")
	odb := filepath.Join(t.TempDir(), "x.git")
	if n := gitCalls(t, func() { Base(repo, odb, "", nil) }); n > 3 {
		t.Errorf("a clean base took %d git processes, want 3 at most", n)
	}
	write(t, repo, "a.txt", "dirty\n", 0o644)
	if n := gitCalls(t, func() { Base(repo, odb, "", nil) }); n > 3 {
		t.Errorf("a dirty base took %d git processes, want 3 at most", n)
	}
}

// In a run whose git directory knows the work tree, the base starts from
// the run's index (HEAD is asked for beside the snapshot): the same tree
// as from the user's index, HEAD itself when clean, and a racy edit seen.
func TestBaseFromRunIndex(t *testing.T) {
	repo := gitRepo(t)
	run(t, repo, "git", "config", "core.trustctime", "false")
	commit(t, repo, "a.txt", "one\n")
	head := strings.TrimSpace(run(t, repo, "git", "rev-parse", "HEAD"))
	where, _ := Locate(repo)
	runDir := filepath.Join(t.TempDir(), "r")
	snap := func() string {
		t.Helper()
		r, tree, err := AfterStep(runDir, where, "", "")
		if err != nil {
			t.Fatal(err)
		}
		if err := r.SetIteration(1, tree, ""); err != nil {
			t.Fatal(err)
		}
		return tree
	}
	snap()
	if _, ok := Known(runDir, repo); !ok {
		t.Fatal("the run's git directory does not know the work tree")
	}
	base := func() (string, string) {
		t.Helper()
		odb := filepath.Join(t.TempDir(), "x.git")
		b, used, ok, err := Base(repo, odb, runDir, nil)
		if err != nil || !ok {
			t.Fatalf("base %q used %v ok %v err %v", b, used, ok, err)
		}
		if !used {
			return b, ""
		}
		r := &Repo{GitDir: filepath.Join(runDir, Dir)}
		if err := r.Import(odb); err != nil {
			t.Fatal(err)
		}
		return b, strings.TrimSpace(run(t, repo, "git", "--git-dir", r.GitDir, "rev-parse", b+"^{tree}"))
	}
	if b, _ := base(); b != head {
		t.Errorf("clean base %s, want HEAD %s", b, head)
	}
	write(t, repo, "new.txt", "untracked\n", 0o644)
	write(t, repo, "a.txt", "two\n", 0o644)
	b, tree := base()
	if b == head || tree != snap() {
		t.Errorf("dirty base %s (tree %s), want a commit of the tree the recorder sees", b, tree)
	}
	if parent := strings.TrimSpace(run(t, repo, "git", "--git-dir", filepath.Join(runDir, Dir), "rev-parse", b+"^1")); parent != head {
		t.Errorf("dirty base's parent %s, want HEAD %s", parent, head)
	}
	// the recorder's index was written in this tick; a same-size edit in it
	tick := time.Now().Add(-time.Hour).Truncate(time.Second)
	file, index := filepath.Join(repo, "a.txt"), filepath.Join(runDir, Dir, "index")
	os.Chtimes(file, tick, tick)
	snap()
	write(t, repo, "a.txt", "six\n", 0o644)
	os.Chtimes(file, tick, tick)
	os.Chtimes(index, tick, tick)
	if _, tree2 := base(); tree2 == tree {
		t.Error("a same-size edit in the tick the run's index was written was not seen")
	}
}

// An iteration's ref is a commit and a file written without git; a lock file a
// killed writer left (even a symlink) is replaced, never followed.
func TestSetIterationGitCalls(t *testing.T) {
	repo := gitRepo(t)
	write(t, repo, "a.txt", "a\n", 0o644)
	r, _, tree := snapshotRepo(t, repo)
	outside := filepath.Join(t.TempDir(), "outside")
	if err := os.Symlink(outside, filepath.Join(r.GitDir, "refs", "iterations", "1.lock")); err != nil {
		t.Fatal(err)
	}
	if n := gitCalls(t, func() {
		if err := r.SetIteration(1, tree, ""); err != nil {
			t.Fatal(err)
		}
	}); n > 0 {
		t.Errorf("SetIteration took %d git processes, want none", n)
	}
	if got, err := r.Tree(1); err != nil || got != tree {
		t.Errorf("Tree(1) = %q, %v; want %s", got, err, tree)
	}
	if _, err := os.Lstat(outside); err == nil {
		t.Error("the lock file's symlink was followed")
	}
}

// A same-size edit in the clock tick the user's index was written leaves
// stat data git cannot trust ("racy"); the private copy of the index must
// keep that doubt, or the base sees the old content. trustctime off and
// set mtimes make the tick deterministic.
func TestBaseSeesRacyEdit(t *testing.T) {
	repo := gitRepo(t)
	run(t, repo, "git", "config", "core.trustctime", "false")
	commit(t, repo, "a.txt", "one\n")
	tick := time.Now().Add(-time.Hour).Truncate(time.Second)
	file, index := filepath.Join(repo, "a.txt"), filepath.Join(repo, ".git", "index")
	os.Chtimes(file, tick, tick)
	run(t, repo, "git", "update-index", "--refresh")
	write(t, repo, "a.txt", "two\n", 0o644)
	os.Chtimes(file, tick, tick)
	os.Chtimes(index, tick, tick)
	// (git status must not write the index: that would settle the doubt)
	if st := run(t, repo, "git", "--no-optional-locks", "status", "--porcelain"); !strings.Contains(st, "a.txt") {
		t.Fatalf("git itself sees no change (%q): the set-up is wrong", st)
	}
	base, used, ok, err := Base(repo, filepath.Join(t.TempDir(), "x.git"), "", nil)
	if err != nil || !ok || !used {
		t.Fatalf("base %q used %v ok %v err %v: the edit was not seen", base, used, ok, err)
	}
}

// The agent may start once the work tree is read: the base's tree and
// commit come from the private index alone, so an edit made from then on
// (here by the staged callback itself) is not in the base.
func TestBaseStagedBeforeTree(t *testing.T) {
	repo := committedRepo(t, "a\n")
	write(t, repo, "a.txt", "before the agent\n", 0o644)
	odb := filepath.Join(t.TempDir(), "x.git")
	calls := 0
	var gitBefore int
	trace := filepath.Join(t.TempDir(), "trace")
	t.Setenv("GIT_TRACE", trace)
	base, used, ok, err := Base(repo, odb, "", func() {
		calls++
		data, _ := os.ReadFile(trace)
		gitBefore = strings.Count(string(data), "trace: built-in: git ")
		write(t, repo, "a.txt", "the agent's edit\n", 0o644)
		write(t, repo, "new.txt", "the agent's new file\n", 0o644)
	})
	os.Unsetenv("GIT_TRACE")
	if err != nil || !ok || !used || calls != 1 {
		t.Fatalf("base %q used %v ok %v err %v, staged called %d times", base, used, ok, err, calls)
	}
	if gitBefore != 2 {
		t.Errorf("%d git processes before the agent may start, want 2 (rev-parse, add)", gitBefore)
	}
	env := append(os.Environ(), "GIT_OBJECT_DIRECTORY="+filepath.Join(odb, "objects"),
		"GIT_ALTERNATE_OBJECT_DIRECTORIES="+filepath.Join(repo, ".git", "objects"))
	cmd := exec.Command("git", "show", base+":a.txt")
	cmd.Dir, cmd.Env = repo, env
	if out, err := cmd.Output(); err != nil || string(out) != "before the agent\n" {
		t.Errorf("a.txt in the base: %q %v", out, err)
	}
	cmd = exec.Command("git", "ls-tree", "--name-only", base)
	cmd.Dir, cmd.Env = repo, env
	if out, err := cmd.Output(); err != nil || string(out) != "a.txt\n" {
		t.Errorf("files in the base: %q %v", out, err)
	}
	// outside git, and on every early return, staged is still called once
	calls = 0
	t.Setenv("GIT_CEILING_DIRECTORIES", os.TempDir())
	Base(t.TempDir(), odb, "", func() { calls++ })
	if calls != 1 {
		t.Errorf("outside git, staged called %d times", calls)
	}
}

// importBase makes the run directory store/runs/r for repo and imports the
// base snapshot's objects from odb, as the record after a step does.
func importBase(t *testing.T, repo, store, odb string) (r *Repo, where *Where, runDir string) {
	t.Helper()
	where, err := Locate(repo)
	if err != nil {
		t.Fatal(err)
	}
	runDir = filepath.Join(store, "runs", "r")
	if r, err = Create(runDir, where.Objects); err != nil {
		t.Fatal(err)
	}
	if err := r.Import(odb); err != nil {
		t.Fatal(err)
	}
	return r, where, runDir
}

// A summary that is itself over the limit says it is cut: a list of the
// first files, ending mid-line with no total, read as all there was
// (TestPatchSummaryCutSaysSo).
func TestPatchSummaryCutSaysSo(t *testing.T) {
	repo := committedRepo(t, "a\n")
	base := strings.TrimSpace(run(t, repo, "git", "rev-parse", "HEAD"))
	for i := range 60 {
		write(t, repo, fmt.Sprintf("file-%02d-with-a-longer-name.txt", i), "x\n", 0o644)
	}
	r, _, tree := snapshotRepo(t, repo)
	cs, _ := r.Changes(base, tree)
	f, err := os.Create(filepath.Join(t.TempDir(), "changes.patch"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.WritePatch(f, base, tree, cs, 500, "# note\n")
	f.Close()
	data, _ := os.ReadFile(f.Name())
	if err != nil || !res.Summary || int64(len(data)) != res.Bytes {
		t.Fatalf("%+v %v (%d bytes)", res, err, len(data))
	}
	if !strings.HasSuffix(string(data), "\n"+SummaryCut) {
		t.Errorf("a summary cut at the limit does not say so:\n%s", data)
	}
}

// snapshotRepo is a run's private repository for the user's repo, with
// the work tree's snapshot taken once.
func snapshotRepo(t *testing.T, repo string) (*Repo, *Where, string) {
	t.Helper()
	where, err := Locate(repo)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Create(t.TempDir(), where.Objects)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := r.Snapshot(where)
	if err != nil {
		t.Fatal(err)
	}
	return r, where, tree
}
