package artifacts

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runconfig"
	"github.com/loopkit/loopkit/internal/store"
)

// A recording's copy reads what the recording added, not the run: one
// iteration line decoded and one report row read per record, however long
// the run (all three copies at once). Before, every record decoded the
// whole of iterations.jsonl and copied report.tsv whole.
func TestCopyCostDoesNotGrow(t *testing.T) {
	tmp := t.TempDir()
	set := map[string]string{KeyLogDir: filepath.Join(tmp, "logs"), KeyArtifactMode: Mirror,
		KeyGlobalLogDir: filepath.Join(tmp, "mirror"), KeyArtifactDir: filepath.Join(tmp, "arts")}
	st, run := fixture(t, 1, set)
	if err := Write(st, run); err != nil {
		t.Fatal(err)
	}
	for i := 2; i <= 12; i++ {
		addIteration(t, st, run, i)
		row := reportRow(t, st, i)
		if i == 6 {
			addAttempt(t, st, 1)
		}
		decoded.Store(0)
		appended.Store(0)
		if err := Write(st, run); err != nil {
			t.Fatal(err)
		}
		want := int64(1)
		if i == 6 {
			want = 2 // the attempt's line too
		}
		if got := decoded.Load(); got != want {
			t.Errorf("record %d decoded %d log lines, want %d", i, got, want)
		}
		// the row, once for each of the two bin/loop layouts
		if got := appended.Load(); got != 2*int64(len(row)) {
			t.Errorf("record %d read %d bytes of report.tsv, want %d", i, got, 2*len(row))
		}
	}
	// the same copies as written at once from the store
	fresh := map[string]string{KeyLogDir: filepath.Join(tmp, "fresh-logs"), KeyArtifactDir: filepath.Join(tmp, "fresh-arts")}
	again := *run
	again.Settings = runconfig.MustFromMap(fresh)
	if err := Write(st, &again); err != nil {
		t.Fatal(err)
	}
	sameTree(t, filepath.Join(tmp, "logs", "run-r"), filepath.Join(tmp, "fresh-logs", "run-r"))
	sameTree(t, filepath.Join(tmp, "mirror", "run-r"), filepath.Join(tmp, "fresh-logs", "run-r"))
	sameTree(t, filepath.Join(tmp, "arts", "runs", "r"), filepath.Join(tmp, "fresh-arts", "runs", "r"))
}

// A copy whose progress is behind it (a writer killed after the files,
// before the progress) ends as a whole copy; a file lost below the
// progress is written again by Rebuild (a repair), not by Write.
func TestCopyProgressBehindAndRebuild(t *testing.T) {
	tmp := t.TempDir()
	set := map[string]string{KeyLogDir: filepath.Join(tmp, "logs"), KeyArtifactDir: filepath.Join(tmp, "arts")}
	st, run := fixture(t, 2, set)
	if err := Write(st, run); err != nil {
		t.Fatal(err)
	}
	logs := filepath.Join(tmp, "logs", "run-r")
	arts := filepath.Join(tmp, "arts", "runs", "r")
	saved := map[string]string{}
	for _, p := range []string{filepath.Join(logs, progressFile), filepath.Join(arts, progressFile), filepath.Join(arts, "logs", stateFile)} {
		saved[p] = read(t, p)
	}
	for i := 3; i <= 4; i++ {
		addIteration(t, st, run, i)
		reportRow(t, st, i)
	}
	if err := Write(st, run); err != nil {
		t.Fatal(err)
	}
	addIteration(t, st, run, 5)
	reportRow(t, st, 5)
	// killed before the progress of iterations 3 and 4 was written, with
	// half of iteration 5's report row appended
	for p, data := range saved {
		os.WriteFile(p, []byte(data), 0o600)
	}
	f, _ := os.OpenFile(filepath.Join(logs, store.ReportFile), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("5\tite")
	f.Close()
	// and killed while writing iteration 3's log
	os.Remove(filepath.Join(logs, "iter-03.log"))
	os.WriteFile(filepath.Join(logs, ".iter-03.log.tmp-w"), []byte("half"), 0o600)
	if err := Write(st, run); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(logs); slices.ContainsFunc(ents, func(e os.DirEntry) bool { return strings.Contains(e.Name(), ".tmp-") }) {
		t.Errorf("a killed writer's temporary file is left: %v", ents)
	}
	fresh := *run
	fresh.Settings = runconfig.MustFromMap(map[string]string{KeyLogDir: filepath.Join(tmp, "f-logs"), KeyArtifactDir: filepath.Join(tmp, "f-arts")})
	if err := Write(st, &fresh); err != nil {
		t.Fatal(err)
	}
	sameTree(t, logs, filepath.Join(tmp, "f-logs", "run-r"))
	sameTree(t, arts, filepath.Join(tmp, "f-arts", "runs", "r"))

	os.Remove(filepath.Join(logs, "iter-02.log"))
	os.Remove(filepath.Join(arts, "logs", "step-02-implementation.log"))
	if err := Write(st, run); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(logs, "iter-02.log")); err == nil {
		t.Error("Write looked below the copy's progress")
	}
	if err := Rebuild(st, run); err != nil {
		t.Fatal(err)
	}
	sameTree(t, logs, filepath.Join(tmp, "f-logs", "run-r"))
	sameTree(t, arts, filepath.Join(tmp, "f-arts", "runs", "r"))
}

// reportRow appends iteration i's row to the run's report.tsv.
func reportRow(t *testing.T, st *store.Store, i int) string {
	t.Helper()
	row := fmt.Sprintf("%d\titeration\t%d\tFAIL\n", 1000+i, i)
	if err := store.AppendLine(st.RunPath("r", store.ReportFile), []byte(strings.TrimSuffix(row, "\n"))); err != nil {
		t.Fatal(err)
	}
	return row
}

func addAttempt(t *testing.T, st *store.Store, n int) {
	t.Helper()
	a := record.Attempt{ID: fmt.Sprintf("r-attempt-%d", n), RunID: "r", Attempt: n, Kind: "agent_failed",
		Agent: &record.Agent{Phase: "implementation", StepID: "r-step-99"}}
	line, _ := record.Marshal(&a)
	if err := store.AppendLine(st.RunPath("r", store.AttemptsFile), line); err != nil {
		t.Fatal(err)
	}
}

// sameTree fails unless the two directories hold the same visible files
// with the same bytes.
func sameTree(t *testing.T, a, b string) {
	t.Helper()
	files := func(root string) map[string]string {
		m := map[string]string{}
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), ".") {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			m[rel] = read(t, p)
			return nil
		})
		return m
	}
	fa, fb := files(a), files(b)
	if len(fa) != len(fb) {
		t.Errorf("%s has %d files, %s %d", a, len(fa), b, len(fb))
	}
	for name, data := range fb {
		if fa[name] != data {
			t.Errorf("%s/%s differs from %s's", a, name, b)
		}
	}
}
