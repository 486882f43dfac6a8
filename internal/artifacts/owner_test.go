package artifacts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopkit/loopkit/internal/testsupport/otheruser"
)

// An artifact_dir or log_dir in a folder a group shares: another member
// made runs/ (or the run's folder) first, or swapped the run's folder for
// one of theirs holding a combined.log of mode 0666. The recording
// appended the agent's and the validation's output to their file. Now a
// copy folder of another user's is refused, in one line naming it.
func TestCopiesNotInAnotherUsersFolder(t *testing.T) {
	tmp := t.TempDir()
	arts, logs := filepath.Join(tmp, "arts"), filepath.Join(tmp, "logs")
	st, run := fixture(t, 1, map[string]string{KeyArtifactDir: arts, KeyLogDir: logs})
	if err := Write(st, run); err != nil {
		t.Fatal(err)
	}
	planted := map[string]string{
		filepath.Join(arts, "runs", "r"): filepath.Join("logs", "combined.log"),
		filepath.Join(logs, "run-r"):     "report.tsv",
	}
	for dir, file := range planted {
		if err := os.Rename(dir, dir+".theirs"); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, file)), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, file), []byte("theirs\n"), 0o666); err != nil {
			t.Fatal(err)
		}
		otheruser.Owns(t, filepath.Join(dir, file))
		if filepath.Dir(file) != "." {
			otheruser.Owns(t, filepath.Join(dir, filepath.Dir(file)))
		}
		otheruser.Owns(t, dir)
	}
	addIteration(t, st, run, 2)
	err := Write(st, run)
	if err == nil || !strings.Contains(err.Error(), " belongs to ") || strings.Contains(err.Error(), "\n") {
		t.Errorf("copies into another user's folder: %v, want a one-line refusal naming it", err)
	}
	for dir, file := range planted {
		if got := read(t, filepath.Join(dir, file)); got != "theirs\n" {
			t.Errorf("%s was written to: %q", filepath.Join(dir, file), got)
		}
	}
}
