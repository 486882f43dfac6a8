package store

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopkit/loopkit/internal/testsupport/otheruser"
)

// In a repository a group shares (setgid, umask 002), another member made
// .loop first, mode 0777, or as a link to a folder of theirs: the driver
// wrote its runs there, the other member's to rename, swap or delete. Now
// every command refuses that store with one line naming it and its owner.
func TestStoreOfAnotherUser(t *testing.T) {
	for _, link := range []bool{false, true} {
		ws := t.TempDir()
		theirs := otheruser.Planted(t, filepath.Join(ws, ".loop"), link)
		st, err := Resolve("", ws)
		if err == nil {
			err = st.Init()
		}
		if err == nil || !strings.Contains(err.Error(), "belongs to ") || !strings.Contains(err.Error(), "LOOP_STORE") {
			t.Errorf("link %v: store in another user's folder: %v, want a refusal", link, err)
		}
		if names, _ := os.ReadDir(theirs); len(names) != 0 {
			t.Errorf("link %v: wrote %v in another user's folder (%v)", link, names, err)
		}
	}
}

// runs/ of another user's, in a store of this user's (planted while the
// store was open to others), is refused as well.
func TestStoreRunsOfAnotherUser(t *testing.T) {
	root := filepath.Join(t.TempDir(), ".loop")
	if err := os.MkdirAll(filepath.Join(root, "runs"), 0o700); err != nil {
		t.Fatal(err)
	}
	if os.Getuid() != 0 {
		t.Skip("needs root to give runs/ away while the root stays ours")
	}
	otheruser.Owns(t, filepath.Join(root, "runs"))
	if _, err := Open(root); err == nil || !strings.Contains(err.Error(), "runs belongs to ") {
		t.Errorf("Open with another user's runs/ = %v, want a refusal", err)
	}
}

// Root (a sudo) in another user's folder outside git made .loop there,
// root's: the owner's own loop was then refused, and root's runs were the
// owner's to delete. Nothing is made; the line names the folder's owner.
func TestStoreInAnotherUsersFolder(t *testing.T) {
	ws, _ := filepath.EvalSymlinks(t.TempDir()) // macOS: /var is a link
	otheruser.Owns(t, ws)
	st, err := Resolve("", ws)
	if err == nil {
		err = st.Init()
	}
	if err == nil || !strings.Contains(err.Error(), "would be made in "+ws+", which belongs to ") {
		t.Errorf("store in another user's folder: %v, want a refusal", err)
	}
	if _, err := os.Lstat(filepath.Join(ws, ".loop")); !os.IsNotExist(err) {
		t.Errorf(".loop made in another user's folder (%v)", err)
	}
}

// storeChild, set, makes a test below the other user's part of itself
// (otheruser.Rerun): it opens, or makes, the store the variable names.
const storeChild = "LOOPKIT_STORE_CHILD"

// asOther runs the test's other-user part on root and returns the line
// it printed: the error of opening (and, with init, making) the store.
func asOther(t *testing.T, root string, init bool) string {
	if r := os.Getenv(storeChild); r != "" {
		st, err := Open(r)
		if err == nil && init {
			err = st.Init()
		}
		fmt.Printf("store: %v\n", err)
		return ""
	}
	out := otheruser.Rerun(t, storeChild+"="+root)
	_, line, ok := strings.Cut(out, "store: ")
	if !ok {
		t.Fatalf("as uid 4242: no store line in %s", out)
	}
	line, _, _ = strings.Cut(line, "\n")
	return line
}

// A user in a repository of root's they may not write (a clone made with
// sudo, /srv/app): mkdir said "permission denied", and the hint was to
// chmod root's folder. Now the line says whose it is and what to set.
func TestStoreInRootsFolder(t *testing.T) {
	ws := filepath.Join(otheruser.Reachable(t), "app") // root's, 0755
	if err := os.Mkdir(ws, 0o755); err != nil && os.Getenv(storeChild) == "" {
		t.Fatal(err)
	}
	got := asOther(t, filepath.Join(ws, ".loop"), true)
	if os.Getenv(storeChild) != "" {
		return
	}
	want := "store " + ws + "/.loop would be made in " + ws + ", which belongs to root (uid 0) and may not be written by uid 4242: set LOOP_STORE to a folder of yours"
	if got != want {
		t.Errorf("as uid 4242: %s\nwant %s", got, want)
	}
}

// Another user's store behind their home (0750): "lstat …/runs:
// permission denied", naming neither the folder in the way nor its owner,
// and `loop resume` hinted to chmod it. Now every command says whose
// folder keeps them out.
func TestStoreBehindAnotherUsersFolder(t *testing.T) {
	home := filepath.Join(otheruser.Reachable(t), "home") // root's, 0700
	if err := os.MkdirAll(filepath.Join(home, "app", ".loop", "runs"), 0o700); err != nil && os.Getenv(storeChild) == "" {
		t.Fatal(err)
	}
	got := asOther(t, filepath.Join(home, "app", ".loop"), false)
	if os.Getenv(storeChild) != "" {
		return
	}
	want := "store " + home + "/app/.loop cannot be reached: " + home + " belongs to root (uid 0) and does not let uid 4242 in: run as its owner, or set LOOP_STORE to a folder of yours"
	if got != want {
		t.Errorf("as uid 4242: %s\nwant %s", got, want)
	}
}

// A store behind a folder of the user's own that lets nobody in (chmod
// 000 by the agent or a script): "lstat …/runs: permission denied", and
// `loop resume --interrupted` skipped it as "no store here". Now the line
// names the folder and the chmod that lets the user in again.
func TestStoreBehindOwnClosedFolder(t *testing.T) {
	ws := filepath.Join(otheruser.Reachable(t), "app")
	if os.Getenv(storeChild) == "" {
		if err := os.MkdirAll(filepath.Join(ws, ".loop", "runs"), 0o700); err != nil {
			t.Fatal(err)
		}
		if os.Geteuid() == 0 {
			if err := os.Lchown(ws, otheruser.ID, otheruser.ID); err != nil {
				t.Skip("cannot chown:", err)
			}
			os.Lchown(filepath.Join(ws, ".loop"), otheruser.ID, otheruser.ID)
			os.Lchown(filepath.Join(ws, ".loop", "runs"), otheruser.ID, otheruser.ID)
		}
		if err := os.Chmod(ws, 0); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(ws, 0o700) })
	}
	got := asOther(t, filepath.Join(ws, ".loop"), false)
	if os.Getenv(storeChild) != "" {
		return
	}
	want := "store " + ws + "/.loop cannot be reached: " + ws + " (mode 0000) does not let uid 4242 in: chmod u+rwx " + ws
	if got != want {
		t.Errorf("as uid 4242: %s\nwant %s", got, want)
	}
}

// runChild, set, makes TestRunOfRoot the other user's part of itself.
const runChild = "LOOPKIT_RUN_CHILD"

// A run of the user's store that root owns (resumed under sudo by an
// older loopkit): "stat …/run.json: permission denied", naming neither
// whose it is nor how to have it back. The line now says both, and a run
// the user closed (chmod 000) is named with the chmod.
func TestRunOfRoot(t *testing.T) {
	if root := os.Getenv(runChild); root != "" {
		st := &Store{Root: root}
		fmt.Printf("root's: %v\nclosed: %v\n", st.FindRun("r"), st.FindRun("c"))
		return
	}
	otheruser.Rerunnable(t)
	st := &Store{Root: filepath.Join(otheruser.Reachable(t), ".loop")}
	for _, id := range []string{"r", "c"} {
		if err := st.CreateRun(NewRun(id, id, 1)); err != nil {
			t.Fatal(err)
		}
	}
	if os.Geteuid() == 0 {
		if err := exec.Command("chown", "-R", "4242:4242", st.Root).Run(); err != nil {
			t.Skip("cannot chown:", err)
		}
		os.Lchown(st.RunDir("r"), 0, 0)
	}
	os.Chmod(st.RunDir("c"), 0)
	out := otheruser.Rerun(t, runChild+"="+st.Root)
	for _, want := range []string{
		"root's: run r cannot be read: " + st.RunDir("r") + " belongs to root (uid 0), not to uid 4242: give it back (sudo chown -R 4242 " + st.RunDir("r") + ")\n",
		"closed: run c cannot be read: stat " + st.RunPath("c", RunFile) + ": permission denied: chmod -R u+rwX " + st.RunDir("c") + "\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("as uid 4242:\n%s\nwant %q", out, want)
		}
	}
}
