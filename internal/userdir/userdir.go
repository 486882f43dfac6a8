// Package userdir finds loopkit's directories outside every workspace: the
// state directory ($XDG_STATE_HOME/loopkit) for what the person accepted
// and what a run must remember past a reboot, and the runtime directory
// ($XDG_RUNTIME_DIR/loopkit) for the processes loopkit started. The agent
// works in the workspace; what loopkit trusts is kept here.
package userdir

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// State is $XDG_STATE_HOME/loopkit (default ~/.local/state/loopkit),
// created 0700 when missing.
func State() (string, error) {
	dir, err := statePath()
	if err == nil {
		dir, err = private(dir, true)
	}
	if err != nil {
		return "", fmt.Errorf("no state directory: %v; set XDG_STATE_HOME to a folder of yours outside the workspace", err)
	}
	return dir, nil
}

// StatePath is where State is, without making it: "" when there is no
// home to put it in. For checks that must run before anything is made.
func StatePath() string {
	dir, _ := statePath()
	return dir
}

// statePath is where State is, or why there is none.
func statePath() (string, error) {
	base := os.Getenv("XDG_STATE_HOME")
	if !filepath.IsAbs(base) { // the spec ignores a relative value
		home, err := Home()
		if err != nil {
			return "", err
		}
		base = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(base, "loopkit"), nil
}

// runtimeEnv is $XDG_RUNTIME_DIR/loopkit; "" when XDG_RUNTIME_DIR is not
// an absolute path (the spec ignores a relative value).
func runtimeEnv() string {
	if base := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(base) {
		return filepath.Join(base, "loopkit")
	}
	return ""
}

// RuntimePath is where Runtime is, without making it ("" as StatePath).
func RuntimePath() string {
	if dir := runtimeEnv(); dir != "" {
		return dir
	}
	if s := StatePath(); s != "" {
		return filepath.Join(s, "runtime")
	}
	return ""
}

// OtherRuntimes are the runtime directories a process of this user's
// started elsewhere would have used, other than Runtime: logind's
// /run/user/UID/loopkit and State's runtime folder. A driver started in a
// login session (XDG_RUNTIME_DIR set) is cancelled from cron, sudo or an
// ssh without a session (unset), and the other way round. Only private
// directories of this user's, never made here.
func OtherRuntimes() []string {
	cands := []string{filepath.Join("/run/user", strconv.Itoa(UID()), "loopkit")}
	if s := StatePath(); s != "" {
		cands = append(cands, filepath.Join(s, "runtime"))
	}
	var out []string
	for _, d := range cands {
		if d == RuntimePath() {
			continue
		}
		fi, err := os.Lstat(d)
		if err != nil || !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 {
			continue
		}
		if owner, ok := Owner(fi); ok && owner == UID() {
			out = append(out, d)
		}
	}
	return out
}

// Home is $HOME when it is an absolute path. A relative one (HOME=. in a
// container, HOME='~' quoted) names a folder of wherever each process
// is, the workspace most often: loopkit's state there was the agent's to
// rewrite, and each command found another.
func Home() (string, error) {
	home, err := os.UserHomeDir()
	if err == nil && !filepath.IsAbs(home) {
		err = fmt.Errorf("HOME %q is not an absolute path", home)
	}
	return home, err
}

// StateSub is the directory name under State, made 0700 when missing:
// one per kind of thing a run must remember (git-config, settings).
func StateSub(name string) (string, error) { return sub(State, name) }

// Runtime is $XDG_RUNTIME_DIR/loopkit, or without XDG_RUNTIME_DIR the
// folder runtime of State; 0700 either way. Never under the temporary
// directory: the agent CLIs' sandboxes let the agent write there, and the
// run's config copy, the process record and the driver's records in
// flight would be its to rewrite.
func Runtime() (string, error) {
	if dir := runtimeEnv(); dir != "" {
		dir, err := private(dir, true)
		if err != nil {
			return "", fmt.Errorf("no runtime directory: %v; set XDG_RUNTIME_DIR to a folder of yours outside the workspace", err)
		}
		return dir, nil
	}
	return StateSub("runtime")
}

// OlderRuntime is where loopkit kept its runtime directory without
// XDG_RUNTIME_DIR before it moved under State: $TMPDIR/loopkit-UID; ""
// when XDG_RUNTIME_DIR is set (both then use it). Nothing is made there.
func OlderRuntime() string {
	if runtimeEnv() != "" {
		return ""
	}
	return filepath.Join(os.TempDir(), "loopkit-"+strconv.Itoa(os.Getuid()))
}

// RuntimeSub is the directory name under Runtime, made 0700 when missing:
// one per kind of thing the processes of a boot share (procs, trees,
// configs).
func RuntimeSub(name string) (string, error) { return sub(Runtime, name) }

// StateSubPath is StateSub's directory for a reader, which must neither
// make nor change anything: an error when it, or State, is missing or is
// not a 0700 directory of this user's (StateSub would tighten a looser one).
func StateSubPath(name string) (string, error) {
	dir, err := statePath()
	if err != nil {
		return "", err
	}
	return existingPrivate(dir, name)
}

// RuntimeSubPath is RuntimeSub's directory for a reader, as StateSubPath.
func RuntimeSubPath(name string) (string, error) {
	dir := RuntimePath()
	if dir == "" {
		return "", fmt.Errorf("no runtime directory")
	}
	return existingPrivate(dir, name)
}

// existingPrivate is name under dir when both are 0700 directories of
// this user's, not links (what private makes sure of, but not made nor
// changed here).
func existingPrivate(dir, name string) (string, error) {
	sub := filepath.Join(dir, name)
	for _, d := range []string{dir, sub} {
		fi, err := os.Lstat(d)
		if err != nil {
			return "", err
		}
		if owner, ok := Owner(fi); !fi.IsDir() || !ok || owner != UID() || fi.Mode().Perm()&0o077 != 0 {
			return "", fmt.Errorf("%s is not a 0700 directory of this user's", d)
		}
	}
	return sub, nil
}

// sub is name under parent's directory, held to the checks of the parent:
// the agent runs as the user and could have put a link there.
func sub(parent func() (string, error), name string) (string, error) {
	dir, err := parent()
	if err != nil {
		return "", err
	}
	return private(filepath.Join(dir, name), false)
}

// private makes dir (0700) and checks it is a directory of this user's,
// not a link, that nobody else can write into.
func private(dir string, parents bool) (string, error) {
	mk := os.Mkdir
	if parents {
		if _, err := os.Lstat(dir); err != nil {
			if err := ownAncestor(dir); err != nil {
				return "", err
			}
		}
		mk = os.MkdirAll
	}
	if err := mk(dir, 0o700); err != nil && !os.IsExist(err) {
		return "", err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return "", err
	}
	// the owner first: another user's link in /tmp is not this user's to remove
	owner, ok := Owner(fi)
	switch {
	case ok && owner != UID():
		return "", NotYours(dir, owner)
	case !fi.IsDir() || !ok:
		return "", fmt.Errorf("%s is not a directory of this user's (a link?): remove it", dir)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return "", err
		}
	}
	return dir, nil
}
