package loopkit_test

import (
	"os/exec"
	"strings"
	"testing"
)

const mod = "github.com/loopkit/loopkit/"

// TestLayers keeps the layers visible (docs/decisions.md "Layers"): cli,
// which every command imports, stays below the driver's arguments and
// process handling; the decisions read the store and never reach the
// writer; the writer is below the one door.
func TestLayers(t *testing.T) {
	for _, r := range []struct {
		pkg    string
		never  []string // not even indirectly
		reason string
	}{
		{"internal/cli", []string{"internal/driverargs", "internal/proc", "internal/store", "internal/recorder", "internal/runstate"},
			"every command imports cli"},
		{"internal/nextaction", []string{"internal/recorder", "internal/runstate", "internal/hooks"}, "a decision reads, the door writes"},
		{"internal/watchdog", []string{"internal/recorder", "internal/runstate", "internal/hooks"}, "a decision reads, the door writes"},
		{"internal/ratelimit", []string{"internal/recorder", "internal/runstate", "internal/hooks"}, "a decision reads, the door writes"},
		{"internal/recorder", []string{"internal/runstate", "internal/hooks", "internal/retention"}, "the writer is below the door"},
		{"internal/store", []string{"internal/recorder", "internal/runstate"}, "the store's reader is below the writer"},
		{"internal/exitcode", []string{"internal/"}, "the table of codes is a leaf"},
	} {
		for _, dep := range deps(t, r.pkg) {
			for _, bad := range r.never {
				if strings.HasPrefix(dep, mod+bad) && dep != mod+r.pkg {
					t.Errorf("%s imports %s (%s)", r.pkg, strings.TrimPrefix(dep, mod), r.reason)
				}
			}
		}
	}
	// The writer itself is configured in one place: only the door and the
	// commands that write import it.
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		for _, imp := range f[1:] {
			if imp != mod+"internal/recorder" {
				continue
			}
			p := strings.TrimPrefix(f[0], mod)
			if p != "internal/runstate" && !strings.HasPrefix(p, "internal/command/") {
				t.Errorf("%s imports internal/recorder: go through internal/runstate", p)
			}
		}
	}
}

func deps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "./"+pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	return strings.Fields(string(out))
}
