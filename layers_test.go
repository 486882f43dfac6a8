package loopkit_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const mod = "github.com/loopkit/loopkit/"

// TestLayers keeps the layers visible (docs/decisions.md "Layers"): cli,
// which every command imports, stays below the driver's arguments and
// process handling; the decisions read the store and never reach the
// writer; the writer is below the one door.
func TestLayers(t *testing.T) {
	t.Parallel()
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

// TestStatusThroughDoor: a run's status is written only through
// internal/runstate's door (its event, hooks and clean), whoever changes
// it: no command sets run.Status to a status of its own or calls the
// writer's SetStatus. (loop-drive's holder marked runs running and queued
// by hand before.)
func TestStatusThroughDoor(t *testing.T) {
	t.Parallel()
	statuses := map[string]bool{}
	for _, s := range []string{"RunRunning", "RunCompleted", "RunFailed", "RunStuck", "RunCanceled", "RunPaused", "RunQueued"} {
		statuses[s] = true
	}
	err := filepath.WalkDir("internal", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch path {
			case "internal/runstate", "internal/recorder", "internal/store", "internal/testsupport":
				return filepath.SkipDir // the door, its writer, the run's creation, fakes
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				for i, lhs := range n.Lhs {
					sel, ok := lhs.(*ast.SelectorExpr)
					if !ok || sel.Sel.Name != "Status" || i >= len(n.Rhs) {
						continue
					}
					if v, ok := n.Rhs[i].(*ast.SelectorExpr); ok && statuses[v.Sel.Name] {
						t.Errorf("%s: sets a run's status to %s by hand: go through runstate.Door", path, v.Sel.Name)
					}
				}
			case *ast.CallExpr:
				sel, ok := n.Fun.(*ast.SelectorExpr)
				if !ok || sel.Sel.Name != "SetStatus" {
					return true
				}
				if recv, ok := sel.X.(*ast.SelectorExpr); ok && recv.Sel.Name == "Rec" {
					t.Errorf("%s: calls the writer's SetStatus: call the door's", path)
				}
				if id, ok := sel.X.(*ast.Ident); ok && strings.Contains(strings.ToLower(id.Name), "rec") {
					t.Errorf("%s: calls %s.SetStatus, the writer's: call the door's", path, id.Name)
				}
				if recv, ok := sel.X.(*ast.SelectorExpr); ok && strings.Contains(strings.ToLower(recv.Sel.Name), "rec") {
					t.Errorf("%s: calls %s.SetStatus, the writer's: call the door's", path, recv.Sel.Name)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
