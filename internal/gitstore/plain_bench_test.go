package gitstore

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// BenchmarkSnapshot10k is the cost of one iteration's snapshots on a tree
// of 10,000 files (100 folders of 100 files): the step's base, ten files
// edited, the tree after it, its commit and the change list, as the driver
// takes them. "first" is a run's first iteration (no private index yet:
// every file hashed), "next" a later one (the index's stat cache). A plain
// folder (no git) against a git repository of the same files.
func BenchmarkSnapshot10k(b *testing.B) {
	for _, kind := range []string{"plain", "git"} {
		for _, phase := range []string{"first", "next"} {
			b.Run(kind+"/"+phase, func(b *testing.B) {
				dir := tree10k(b, kind == "git")
				spool := filepath.Join(dir, StoreName, "spool")
				os.MkdirAll(spool, 0o700)
				runs := 0
				newRun := func() string {
					runs++
					d := filepath.Join(dir, StoreName, "runs", fmt.Sprintf("r%d", runs))
					os.MkdirAll(d, 0o700)
					return d
				}
				runDir := newRun()
				n := 0
				iterate := func(runDir string) {
					n++
					odb := filepath.Join(spool, "s.git")
					base, _, ok, err := Base(dir, odb, runDir, nil)
					if err != nil || !ok {
						b.Fatalf("base: %v", err)
					}
					for i := range 10 {
						p := filepath.Join(dir, fmt.Sprintf("d%02d", i), "f00.txt")
						os.WriteFile(p, fmt.Appendf(nil, "edit %d\n", n), 0o644)
					}
					where, err := LocateAny(dir)
					if err != nil || where.Plain != (kind == "plain") {
						b.Fatalf("LocateAny: %+v %v", where, err)
					}
					repo, tree, err := AfterStep(runDir, where, odb, "")
					if err != nil {
						b.Fatal(err)
					}
					os.RemoveAll(odb)
					if err := repo.SetIteration(n, tree, base); err != nil {
						b.Fatal(err)
					}
					if _, err := repo.Changes(base, tree); err != nil {
						b.Fatal(err)
					}
				}
				if phase == "next" {
					iterate(runDir) // the run's first iteration, not measured
				}
				b.ResetTimer()
				for b.Loop() {
					if phase == "first" {
						b.StopTimer()
						runDir = newRun()
						b.StartTimer()
					}
					iterate(runDir)
				}
			})
		}
	}
}

// tree10k is a folder of 10,000 files of about 200 bytes, committed in a
// git repository when inGit.
func tree10k(b *testing.B, inGit bool) string {
	dir := b.TempDir()
	b.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(dir))
	b.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(b.TempDir(), "gitconfig"))
	b.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	line := []byte("the quick brown fox jumps over the lazy dog, again and again, ")
	for d := range 100 {
		sub := filepath.Join(dir, fmt.Sprintf("d%02d", d))
		os.MkdirAll(sub, 0o755)
		for f := range 100 {
			os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%02d.txt", f)), fmt.Appendf(nil, "%s%s%s%d\n", line, line, line, d*100+f), 0o644)
		}
	}
	if inGit {
		for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.email=b@loopkit.invalid", "-c", "user.name=b", "commit", "-qm", "init"}} {
			cmd := exec.Command("git", append([]string{"-c", "gc.auto=0"}, args...)...) // no gc left running after it
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("git %v: %v %s", args, err, out)
			}
		}
	}
	return dir
}
