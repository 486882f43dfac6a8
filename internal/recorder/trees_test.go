package recorder

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/loopkit/loopkit/internal/gitrun"
	"github.com/loopkit/loopkit/internal/gitstore"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
)

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// An iteration in git: the trees are taken while the streams are placed,
// and the iteration's commit made while its diff is computed (run with
// -race); files_changed, changes.patch and the ref all come out.
func TestTreesBesideStreams(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	work := t.TempDir()
	os.WriteFile(filepath.Join(work, "a.txt"), []byte("a\n"), 0o644)
	git(t, work, "init", "-q")
	git(t, work, "add", ".")
	git(t, work, "commit", "-qm", "init")
	os.WriteFile(filepath.Join(work, "a.txt"), []byte("dirty before the step\n"), 0o644)
	st, _ := store.Open(filepath.Join(work, ".loop"))
	if err := st.Init(); err != nil {
		t.Fatal(err)
	}
	r := newRecorder(t)
	r.St, r.Trees, r.Workspace = st, true, work
	odb := st.NewSpool("step") + ".git"
	base, used, ok, err := gitstore.Base(work, odb, "", nil)
	if err != nil || !ok || !used {
		t.Fatalf("base %q used %v ok %v err %v", base, used, ok, err)
	}
	os.WriteFile(filepath.Join(work, "b.txt"), []byte("new from the agent\n"), 0o644)
	step, _ := json.Marshal(map[string]any{"type": "step", "command": "agent", "exit_code": 0, "dir": work,
		"git_base": base, "git_objects": odb, "tool_calls": []any{}})
	val, _ := json.Marshal(map[string]any{"type": "validation", "command": "make test", "exit_code": 1,
		"stdout": "FAIL: TestX\n", "dir": work})
	in, err := record.DecodeInput([]byte(string(step) + "\n" + string(val) + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Record("r", in, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(res.Log.FilesChanged, ","); got != "b.txt" {
		t.Errorf("files_changed %q, want b.txt (a.txt was dirty before the step)", got)
	}
	patch, _ := os.ReadFile(filepath.Join(st.IterationDir("r", 1), ChangesPatch))
	if !strings.Contains(string(patch), "+new from the agent") || res.Log.DiffDigest == "" {
		t.Errorf("changes.patch %q, digest %q", patch, res.Log.DiffDigest)
	}
	repo, err := gitstore.Open(st.RunDir("r"))
	if err != nil {
		t.Fatal(err)
	}
	if from, err := repo.Base(1); err != nil || from == "" {
		t.Errorf("Base(1) %q %v", from, err)
	}

	// The second iteration finds the work tree from the run's git
	// directory, asks git only for HEAD (beside the snapshot), and gets
	// the same record as the first.
	if _, ok := gitstore.Known(st.RunDir("r"), work); !ok {
		t.Fatal("after an iteration the run's git directory does not know the work tree")
	}
	git(t, work, "add", ".")
	git(t, work, "commit", "-qm", "the agent commits")
	os.WriteFile(filepath.Join(work, "c.txt"), []byte("iteration two\n"), 0o644)
	in2, err := record.DecodeInput([]byte(string(val) + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Record("r", in2, 2); err != nil {
		t.Fatal(err)
	}
	res2, err := r.Record("r", in2, 2) // a repeat: the stored line
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(res2.Log.FilesChanged, ","); got != "c.txt" {
		t.Errorf("iteration 2 without a step base: files_changed %q, want c.txt (what differs from HEAD)", got)
	}
	head := strings.TrimSpace(string(must(exec.Command("git", "-C", work, "rev-parse", "HEAD").Output())))
	manifest, _ := os.ReadFile(st.RunPath("r", store.ManifestFile))
	if !strings.Contains(string(manifest), `"commit_sha": "`+head+`"`) {
		t.Errorf("manifest.json does not name HEAD %s:\n%s", head, manifest)
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// Something the agent left running can plant a link where the record is
// about to write an iteration's file (changes.patch, meta.json, a copied
// stream): a hard link to a file of the person's, or a symlink. The
// record's write never goes through it.
func TestIterationFilesNeverWrittenThroughALink(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(dir, "bashrc")
	os.WriteFile(outside, []byte("keep\n"), 0o600)
	for _, plant := range []func(string) error{
		func(p string) error { return os.Link(outside, p) },
		func(p string) error { return os.Symlink(outside, p) },
	} {
		path := filepath.Join(dir, ChangesPatch)
		os.Remove(path)
		if err := plant(path); err != nil {
			t.Skip(err)
		}
		if err := writeSynced(path, []byte("diff\n")); err == nil {
			t.Error("wrote through a planted link")
		}
		if f, err := openOwn(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC); err == nil {
			f.Close()
			t.Error("opened a planted link for the patch")
		}
		if data, _ := os.ReadFile(outside); string(data) != "keep\n" {
			t.Fatalf("the person's file now holds %q", data)
		}
	}
}

// treesRun is a git work tree with one commit, its store, and a recorder
// with trees; record(n) records iteration n from a step whose base is HEAD
// (as the driver's) and a validation, and returns its log.
func treesRun(t *testing.T) (work string, st *store.Store, record1 func(n int) *record.IterationLog) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	work = t.TempDir()
	os.WriteFile(filepath.Join(work, "a.txt"), []byte("a\n"), 0o644)
	git(t, work, "init", "-q")
	git(t, work, "add", ".")
	git(t, work, "commit", "-qm", "init")
	head := strings.TrimSpace(string(must(exec.Command("git", "-C", work, "rev-parse", "HEAD").Output())))
	st, _ = store.Open(filepath.Join(work, ".loop"))
	if err := st.Init(); err != nil {
		t.Fatal(err)
	}
	r := newRecorder(t)
	r.St, r.Trees, r.Workspace = st, true, work
	return work, st, func(n int) *record.IterationLog {
		t.Helper()
		step, _ := json.Marshal(map[string]any{"type": "step", "command": "agent", "exit_code": 0, "dir": work,
			"git_base": head, "tool_calls": []any{}})
		val, _ := json.Marshal(map[string]any{"type": "validation", "command": "make test", "exit_code": 1, "dir": work})
		in, err := record.DecodeInput([]byte(string(step) + "\n" + string(val) + "\n"))
		if err != nil {
			t.Fatal(err)
		}
		res, err := r.Record("r", in, n)
		if err != nil {
			t.Fatal(err)
		}
		return res.Log
	}
}

// An iteration whose tree could not be recorded has files_changed null
// (unknown), never an empty list, which says the agent changed nothing
// (and feeds the watchdog's no-change signal). Here the agent replaced
// .git by a file pointing nowhere: the record found no work tree, said
// nothing and wrote [], though a.txt had changed.
func TestUnrecordedTreeLeavesFilesChangedUnknown(t *testing.T) {
	work, st, rec := treesRun(t)
	os.WriteFile(filepath.Join(work, "a.txt"), []byte("one\n"), 0o644)
	if got := rec(1).FilesChanged; strings.Join(got, ",") != "a.txt" {
		t.Fatalf("iteration 1: files_changed %q, want a.txt", got)
	}
	os.Rename(filepath.Join(work, ".git"), filepath.Join(t.TempDir(), "moved.git"))
	os.WriteFile(filepath.Join(work, ".git"), []byte("gitdir: /nonexistent\n"), 0o644)
	os.WriteFile(filepath.Join(work, "a.txt"), []byte("two\n"), 0o644)
	if got := rec(2).FilesChanged; got != nil {
		t.Errorf("iteration 2, its tree not recorded: files_changed %q, want null", got)
	}
	line, _ := os.ReadFile(st.RunPath("r", store.IterationsFile))
	if !strings.Contains(string(line), `"files_changed":null`) {
		t.Errorf("iterations.jsonl does not say files_changed null:\n%s", line)
	}
}

// The run's git directory is in the agent's reach: an index.lock it makes
// there as a directory (which os.Remove leaves) failed every later
// snapshot of the run ("Unable to create index.lock: File exists"), so no
// iteration after it had a tree or a list of changes.
func TestPlantedIndexLockDirectory(t *testing.T) {
	work, st, rec := treesRun(t)
	os.WriteFile(filepath.Join(work, "a.txt"), []byte("one\n"), 0o644)
	rec(1)
	os.MkdirAll(filepath.Join(st.RunDir("r"), gitstore.Dir, "index.lock", "x"), 0o755)
	os.WriteFile(filepath.Join(work, "b.txt"), []byte("two\n"), 0o644)
	if got := rec(2).FilesChanged; strings.Join(got, ",") != "a.txt,b.txt" {
		t.Errorf("iteration 2: files_changed %q, want a.txt,b.txt", got)
	}
}

// A git killed while writing an object (the record cut by Abort, a killed
// process group) leaves objects/xx/tmp_obj_* in the run's git directory,
// where nothing runs git gc: the next record, under the append lock, sweeps
// them as it removes a killed git's index.lock, not only after a full disk.
func TestKilledGitsTempObjectsSwept(t *testing.T) {
	work, st, rec := treesRun(t)
	os.WriteFile(filepath.Join(work, "a.txt"), []byte("one\n"), 0o644)
	rec(1)
	left := filepath.Join(st.RunDir("r"), gitstore.Dir, "objects", "ab", "tmp_obj_Xy12Zq")
	os.MkdirAll(filepath.Dir(left), 0o755)
	if err := os.WriteFile(left, []byte("half an object"), 0o444); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(work, "b.txt"), []byte("two\n"), 0o644)
	rec(2)
	if _, err := os.Lstat(left); err == nil {
		t.Errorf("a killed git's temporary object is still in the run after the next record: %s", left)
	}
}

// A git that could not start under a limit (no fd, no process) refuses
// the record as a full disk does: committed, the iteration would say its
// changes are unknown, and a first iteration that its folder is no
// repository at all.
func TestTreeRefusedUnderLimit(t *testing.T) {
	for _, start := range []error{
		&os.PathError{Op: "fork/exec", Path: "/usr/bin/git", Err: syscall.EAGAIN},
		os.NewSyscallError("pipe2", syscall.EMFILE),
	} {
		if err := gitrun.Error([]string{"rev-parse"}, start, nil); !diskRefused(err) {
			t.Errorf("%v: not refused", err)
		}
	}
	// past ulimit -f: changes.patch, or a git object
	if err := (&os.PathError{Op: "write", Path: "/s/changes.patch", Err: syscall.EFBIG}); !diskRefused(err) {
		t.Errorf("%v: not refused", err)
	}
	if diskRefused(gitrun.Error([]string{"rev-parse"}, errors.New("exit status 128"), []byte("fatal: not a git repository"))) {
		t.Error("a repository git cannot read is no refusal")
	}
}
