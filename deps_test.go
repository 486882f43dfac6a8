package loopkit_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// depRules say which commands may link a module: each binary carries only
// what it uses (a command that only formats records needs no jq; the
// Kubernetes types belong to examples/fleet's own module; loop-export
// builds OTLP data itself instead of linking a tracing SDK and gRPC).
var depRules = []struct {
	prefix  string   // a package path, or a folder of them ending in "/"
	allowed []string // the commands that may link it (none: no command)
	why     string
}{
	{"github.com/itchyny/gojq", []string{"loop-view", "loop-tui"}, "only the commands that evaluate --where/--jq filters link jq"},
	{"k8s.io/", nil, "the Kubernetes types are examples/fleet's, in its own module"},
	{"sigs.k8s.io/", nil, "the Kubernetes types are examples/fleet's, in its own module"},
	{"google.golang.org/grpc", nil, "gRPC is loop-export's build with -tags grpc only"},
	{"google.golang.org/protobuf", nil, "OTLP is marshalled by pdata, not the protobuf runtime"},
	{"go.opentelemetry.io/otel", nil, "loop-export builds pdata itself: no tracing SDK"},
	{"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp", nil, "ptraceotlp pulls gRPC in"},
	{"charm.land/", []string{"loop-tui"}, "the terminal UI libraries are loop-tui's"},
	{"github.com/loopkit/loopkit/internal/proc/", []string{"loop-validate", "loop-record", "loop-progress", "loop-view", "loop-clean", "loop-step", "loop-drive", "loop-tui"}, "loop-export starts no child, so it needs no process watcher (command.Main): 124 KB of its 12 MB"},
	{"encoding/xml", nil, "loop-drive escapes its launchd plist itself (xmlText): the package's tables were built at every start"},
	{"mvdan.cc/sh/", []string{"loop-drive"}, "the shell parser checks a new run's validation (runcheck): its start-up is loop-drive's alone"},
}

// TestDependencyRules checks every command's linked packages (as make
// build links them: CGO_ENABLED=0, no tags) against depRules, and the
// main go.mod for Kubernetes modules.
func TestDependencyRules(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Deps " "}}`, "./cmd/...")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	cmds := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		name := filepath.Base(fields[0])
		cmds++
		for _, r := range depRules {
			allowed := false
			for _, a := range r.allowed {
				allowed = allowed || a == name
			}
			for _, dep := range fields[1:] {
				if !allowed && (strings.HasPrefix(dep, r.prefix) || dep+"/" == r.prefix) {
					t.Errorf("%s links %s: %s", name, dep, r.why)
					break
				}
			}
		}
	}
	if cmds < 9 {
		t.Errorf("go list found %d commands under cmd/, want 9 or more", cmds)
	}
	gomod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(gomod), "k8s.io") {
		t.Error("go.mod requires a k8s.io module: it belongs to examples/fleet/go.mod")
	}
}

// exportTags are the build tags of loop-export's builds (make export and
// the release): net/http without HTTP/2.
const exportTags = "nethttpomithttp2"

// TestExportTags: make export, make export-grpc and the release build
// loop-export with exportTags, as TestLoopExportSize does.
func TestExportTags(t *testing.T) {
	t.Parallel()
	mk, err := os.ReadFile("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(mk), "EXPORT_TAGS := "+exportTags+"\n") ||
		strings.Count(string(mk), "-tags $(EXPORT_TAGS) ")+strings.Count(string(mk), "-tags grpc,$(EXPORT_TAGS) ") != 2 {
		t.Errorf("the Makefile's export and export-grpc do not build with -tags %s", exportTags)
	}
	rel, err := os.ReadFile(".goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, build, _ := strings.Cut(string(rel), "id: loop-export\n")
	build, _, _ = strings.Cut(build, "\n\n")
	if !strings.Contains(build, "tags: ["+exportTags+"]") {
		t.Errorf(".goreleaser.yaml builds loop-export without tags: [%s]", exportTags)
	}
}

// TestLoopExportSize builds loop-export as make export builds it (static,
// -trimpath, exportTags) and holds it to 12 MB: the SDK-based exporter
// was 23.8 MB.
func TestLoopExportSize(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds loop-export")
	}
	bin := filepath.Join(t.TempDir(), "loop-export")
	cmd := exec.Command("go", "build", "-tags", exportTags, "-trimpath", "-ldflags", "-X github.com/loopkit/loopkit/internal/cli.Version=v0.0.0-size", "-o", bin, "./cmd/loop-export")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	fi, err := os.Stat(bin)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() > 12_000_000 {
		t.Errorf("loop-export is %d bytes, over 12 MB: see what it links (go list -deps ./cmd/loop-export)", fi.Size())
	}
	t.Logf("loop-export: %d bytes", fi.Size())
}
