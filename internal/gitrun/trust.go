package gitrun

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/loopkit/loopkit/internal/lookpath"
)

// trust is what this process honours of the repositories' own config.
var trust struct {
	sync.Mutex
	on        bool                // Trust was called: guard the calls
	hash      string              // the config as the person left it; "" none
	commands  string              // its Commands digest; "" none kept
	digests   map[string]string   // by config hash: its Commands digest
	overrides map[string]override // by config hash: the environment that neutralises it
	neutral   []string            // the keys neutralised so far
}

// Trust guards every later git call of this process: a repository whose
// config files (ConfigHash) no longer hash to hash has the commands its
// own config names (core.fsmonitor, filters, textconv, credential helpers,
// editors, ...) neutralised; the global and system config keep theirs.
// hash "" trusts no repository's own commands.
func Trust(hash string) { TrustCommands(hash, "") }

// TrustCommands is Trust keeping commands too, the Commands digest of the
// config as the person left it: a config that no longer hashes the same
// but names the same commands (the person added a remote) is honoured.
func TrustCommands(hash, commands string) {
	trust.Lock()
	defer trust.Unlock()
	trust.on, trust.hash, trust.commands = true, hash, commands
}

// Recorded tells whether Trust was given the hash of a config (false:
// the run's was never kept, so no repository's own commands run).
func Recorded() bool {
	trust.Lock()
	defer trust.Unlock()
	return trust.hash != ""
}

// Neutralised lists the settings of a repository's own config that this
// process's git calls have overridden, nil when none.
func Neutralised() []string {
	trust.Lock()
	defer trust.Unlock()
	return slices.Clone(trust.neutral)
}

// guard is the environment that keeps git in dir from running what an
// untrusted config of the repository names.
func guard(dir string) []string {
	trust.Lock()
	defer trust.Unlock()
	if !trust.on {
		return nil
	}
	if dir == "" {
		dir = "."
	}
	hash, err := ConfigHash(dir)
	if err != nil || hash == "" || hash == trust.hash {
		return nil // outside git, git finds nothing to run either
	}
	if sameCommands(dir, hash) {
		return nil
	}
	o, ok := trust.overrides[hash]
	if !ok {
		var keys []string
		o, keys = overrides(dir)
		if trust.overrides == nil {
			trust.overrides = map[string]override{}
		}
		trust.overrides[hash] = o
		for _, k := range keys {
			if !slices.Contains(trust.neutral, k) {
				trust.neutral = append(trust.neutral, k)
			}
		}
		slices.Sort(trust.neutral)
	}
	if o.relocate {
		if top := workTop(dir); top != "" {
			return append(slices.Clip(o.env), "GIT_WORK_TREE="+top)
		}
	}
	return o.env
}

// override is what neutralises one untrusted config: env, and relocate
// when the config moves the work tree (core.worktree, core.bare): then git
// is told the work tree is where its .git is, or a snapshot would record
// another folder (or none) in place of the workspace.
type override struct {
	env      []string
	relocate bool
}

// moves tells whether key=value moves git's work tree (core.worktree set,
// core.bare true); git reads them from the config file itself, before any
// GIT_CONFIG_* entry, so only GIT_WORK_TREE wins.
func moves(key, value string) bool {
	switch key {
	case "core.worktree":
		return true
	case "core.bare":
		v := strings.ToLower(value)
		return v != "false" && v != "no" && v != "off" && v != "0"
	}
	return false
}

// workTop is the folder holding the .git entry (directory or file) of the
// work tree around dir, as commonDir finds it; "" when none.
func workTop(dir string) string {
	d, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

// overrides reads the repository's config (git config runs nothing) and
// returns GIT_CONFIG_* entries that set every command its own files name
// back to the global or system value, or to nothing.
func overrides(dir string) (o override, keys []string) {
	cmd := exec.CommandContext(aborted(), lookpath.Command("git"), "-C", dir, "config", "--list", "--show-scope", "-z", "--includes")
	cmd.Env = append(environ(), policyEnv...)
	out, err := cmd.Output()
	if err != nil {
		// unreadable: neutralise what git would run most often
		out = []byte("local\x00core.fsmonitor\n\x00")
	}
	outer := map[string]string{}
	var local []string
	fields := bytes.Split(out, []byte{0})
	for i := 0; i+1 < len(fields); i += 2 {
		scope := string(fields[i])
		key, value, _ := strings.Cut(string(fields[i+1]), "\n")
		if (scope == "local" || scope == "worktree") && moves(key, value) {
			o.relocate = true
			if !slices.Contains(keys, key) {
				keys = append(keys, key)
			}
			continue
		}
		if !executable(key) && !hides(key) {
			continue
		}
		switch scope {
		case "local", "worktree":
			if !slices.Contains(local, key) {
				local = append(local, key)
			}
		default:
			outer[key] = value
		}
	}
	var kv [][2]string
	for _, k := range local {
		v, ok := outer[k]
		if !ok {
			v = neutral(k)
		}
		kv = append(kv, [2]string{k, v})
		if sec, sub, _ := split(k); sec == "filter" {
			if r := "filter." + sub + ".required"; !ok {
				kv = append(kv, [2]string{r, "false"})
			}
		}
	}
	n, _ := strconv.Atoi(os.Getenv("GIT_CONFIG_COUNT"))
	for i, p := range kv {
		o.env = append(o.env, "GIT_CONFIG_KEY_"+strconv.Itoa(n+i)+"="+p[0], "GIT_CONFIG_VALUE_"+strconv.Itoa(n+i)+"="+p[1])
	}
	if len(kv) > 0 {
		o.env = append(o.env, "GIT_CONFIG_COUNT="+strconv.Itoa(n+len(kv)))
	}
	return o, append(keys, local...)
}

// split is a key's section, subsection and name (section and name lower
// case, as git config --list prints them).
func split(key string) (section, sub, name string) {
	i, j := strings.IndexByte(key, '.'), strings.LastIndexByte(key, '.')
	if i < 0 {
		return key, "", ""
	}
	if i == j {
		return key[:i], "", key[i+1:]
	}
	return key[:i], key[i+1 : j], key[j+1:]
}

// executable tells whether git runs the value of key as a command.
func executable(key string) bool {
	sec, sub, name := split(key)
	if sub == "" {
		switch sec + "." + name {
		case "core.fsmonitor", "core.hookspath", "core.sshcommand", "core.gitproxy", "core.askpass",
			"core.editor", "core.pager", "core.alternaterefscommand", "sequence.editor", "diff.external",
			"gpg.program", "credential.helper", "uploadpack.packobjectshook", "web.browser",
			"interactive.difffilter", "help.browser", "instaweb.browser", "sendemail.tocmd", "sendemail.cccmd":
			return true
		}
		return sec == "pager" // pager.<command>
	}
	switch sec {
	case "filter":
		return name == "clean" || name == "smudge" || name == "process"
	case "diff":
		return name == "textconv" || name == "command"
	case "merge":
		return name == "driver"
	case "credential":
		return name == "helper"
	case "gpg": // gpg.ssh.defaultKeyCommand finds the key a signed commit uses
		return name == "program" || name == "defaultkeycommand"
	case "remote":
		return name == "uploadpack" || name == "receivepack" || name == "vcs"
	case "difftool", "mergetool", "browser", "man", "guitool":
		return name == "cmd" || name == "path"
	case "trailer":
		return name == "command" || name == "cmd"
	}
	return false
}

// hides tells whether key names a file that decides what git add leaves
// out or how it converts a file: a changed config's is set back too, or
// the agent could hide new files from every snapshot (an excludes file of
// `*`) without a line in the work tree.
func hides(key string) bool { return key == "core.excludesfile" || key == "core.attributesfile" }

// neutral is the value that runs nothing: an empty filter is no filter; a
// textconv of cat leaves the text; a merge driver that fails is a conflict.
func neutral(key string) string {
	_, _, name := split(key)
	switch key {
	case "core.fsmonitor":
		return "false"
	case "core.hookspath":
		return os.DevNull
	}
	switch name {
	case "textconv":
		return "cat"
	case "driver":
		return "false"
	}
	return ""
}

// ConfigHash hashes the files of the repository around dir that its own
// config is read from: the common config, every worktree's
// config.worktree, and the files they include. "" outside git.
func ConfigHash(dir string) (string, error) {
	common := commonDir(dir)
	if common == "" {
		return "", nil
	}
	files := []string{filepath.Join(common, "config")}
	// git reads config.worktree only with extensions.worktreeConfig, which
	// the common config sets: its hash covers turning it on
	if data, err := readSmall(files[0]); err == nil && bytes.Contains(bytes.ToLower(data), []byte("worktreeconfig")) {
		files = append(files, filepath.Join(common, "config.worktree"))
		if ents, err := os.ReadDir(filepath.Join(common, "worktrees")); err == nil {
			for _, e := range ents {
				files = append(files, filepath.Join(common, "worktrees", e.Name(), "config.worktree"))
			}
		}
	}
	h := sha256.New()
	seen := map[string]bool{}
	for len(files) > 0 {
		f := files[0]
		files = files[1:]
		if seen[f] || len(seen) > 64 {
			continue
		}
		seen[f] = true
		data, err := readSmall(f)
		h.Write([]byte(f + "\x00"))
		if err != nil {
			h.Write([]byte("-\x00"))
			continue
		}
		h.Write([]byte(strconv.Itoa(len(data)) + "\x00"))
		h.Write(data)
		files = append(files, includes(f, data)...)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// includes are the paths a config file's include and includeIf sections
// name, whatever their condition.
func includes(file string, data []byte) []string {
	var out []string
	in := false
	for _, line := range strings.Split(string(data), "\n") {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "[") {
			sec := strings.ToLower(strings.TrimLeft(l, "[ \t"))
			in = strings.HasPrefix(sec, "include")
			continue
		}
		k, v, ok := strings.Cut(l, "=")
		if !in || !ok || !strings.EqualFold(strings.TrimSpace(k), "path") {
			continue
		}
		p := strings.Trim(strings.TrimSpace(v), `"`)
		if rest, ok := strings.CutPrefix(p, "~/"); ok {
			home, _ := os.UserHomeDir()
			p = filepath.Join(home, rest)
		} else if !filepath.IsAbs(p) {
			p = filepath.Join(filepath.Dir(file), p)
		}
		out = append(out, p)
	}
	return out
}

// commonDir is the common git directory of the work tree around dir,
// found the way git finds it (a .git directory, or a .git file naming a
// linked worktree's directory and its commondir); "" when none.
func commonDir(dir string) string {
	d := workTop(dir)
	if d == "" {
		return ""
	}
	g := filepath.Join(d, ".git")
	fi, err := os.Stat(g)
	if err != nil {
		return ""
	}
	if fi.IsDir() {
		return g
	}
	data, err := readSmall(g)
	if err != nil {
		return ""
	}
	gd := strings.TrimSpace(strings.TrimPrefix(string(data), "gitdir:"))
	if !filepath.IsAbs(gd) {
		gd = filepath.Join(d, gd)
	}
	c, err := readSmall(filepath.Join(gd, "commondir"))
	if err != nil {
		return gd
	}
	cd := strings.TrimSpace(string(c))
	if !filepath.IsAbs(cd) {
		cd = filepath.Join(gd, cd)
	}
	return filepath.Clean(cd)
}
