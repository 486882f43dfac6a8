package store

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Creating a run is one rename: racing creators see exactly one winner, and
// the run is never visible without its run.json and RUN_CREATED event.
func TestCreateRunRace(t *testing.T) {
	s := &Store{Root: filepath.Join(t.TempDir(), ".loop")}
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			errs[i] = s.CreateRun(NewRun("r", "r", 1))
		}(i)
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, os.ErrExist):
			t.Fatal(err)
		}
	}
	if won != 1 {
		t.Fatalf("%d creators won", won)
	}
	if _, err := s.ReadRun("r"); err != nil {
		t.Fatal(err)
	}
	if lines, _ := TailLines(s.RunPath("r", EventsFile), 5); len(lines) != 1 {
		t.Fatalf("%d events, want 1 RUN_CREATED", len(lines))
	}
	left, _ := filepath.Glob(filepath.Join(s.RunsDir(), NewRunPrefix+"*"))
	if len(left) != 0 {
		t.Fatalf("half-built run directories left: %v", left)
	}
	if ids, _ := s.RunIDs(); len(ids) != 1 || ids[0] != "r" {
		t.Fatalf("run ids %v", ids)
	}
}
