package htmlreport

import (
	"bytes"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestBrowserSeesProblems proves the browser check can fail: a page that
// loads from outside and logs an error is caught on both counts.
func TestBrowserSeesProblems(t *testing.T) {
	b := startBrowser(t)
	page := filepath.Join(t.TempDir(), "bad.html")
	html := `<!DOCTYPE html><html><body><img src="http://127.0.0.1:1/x.png"><script>console.error("boom")</script></body></html>`
	if err := os.WriteFile(page, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := b.load("file://"+page, 600)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(v.Problems, "\n")
	for _, want := range []string{"request to http://127.0.0.1:1/x.png", "request failed", "console error"} {
		if !strings.Contains(all, want) {
			t.Errorf("problems do not name %q:\n%s", want, all)
		}
	}
}

// TestDemoReportInBrowser runs the demo loop (make demo), renders its
// report and opens it in headless Chromium: it must load with no request
// but itself, no failed request, no console error or exception, render
// to a full-page PNG and print to PDF. LOOPKIT_REPORT_PNG=FILE keeps the
// screenshot (docs/report.png is made this way).
func TestDemoReportInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the demo loop")
	}
	b := startBrowser(t)
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "bin")
	build := exec.Command("go", "build", "-o", bin+"/", "./cmd/loop-validate", "./cmd/loop-record", "./cmd/loop-progress",
		"./cmd/loop-view", "./cmd/loop-clean", "./cmd/loop-step", "./cmd/loop-drive")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	demo := exec.Command("bash", filepath.Join(root, "scripts", "demo"))
	// the machine's state of its own: the user's own loops may hold every
	// concurrency slot
	os.Mkdir(filepath.Join(tmp, "xdg-run"), 0o700)
	demo.Env = append(os.Environ(), "LOOP_BIN="+bin, "TMPDIR="+tmp, "NO_COLOR=1",
		"XDG_RUNTIME_DIR="+filepath.Join(tmp, "xdg-run"), "XDG_STATE_HOME="+filepath.Join(tmp, "xdg-state"))
	out, err := demo.CombinedOutput()
	if err != nil {
		t.Fatalf("demo: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`The store is (\S+) `).FindSubmatch(out)
	if m == nil {
		t.Fatalf("demo output names no store:\n%s", out)
	}
	report := exec.Command(filepath.Join(bin, "loop-view"), "report")
	report.Env = append(os.Environ(), "LOOP_STORE="+string(m[1]))
	page, err := report.Output()
	if err != nil {
		t.Fatalf("loop-view report: %v", err)
	}
	if !bytes.Contains(page, []byte("TestReverse")) || !bytes.Contains(page, []byte(`<pre class="diff">`)) {
		t.Errorf("the demo's report lacks its failing test or its diffs")
	}
	path := filepath.Join(tmp, "report.html")
	if err := os.WriteFile(path, page, 0o644); err != nil {
		t.Fatal(err)
	}
	url := "file://" + path
	v, err := b.load(url, 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range v.Problems {
		t.Errorf("in the browser: %s", p)
	}
	if len(v.Requests) != 1 || v.Requests[0] != url {
		t.Errorf("requests %q, want the page only", v.Requests)
	}
	img, err := png.Decode(bytes.NewReader(v.Screenshot))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if w, h := img.Bounds().Dx(), img.Bounds().Dy(); w != 1000 || h < 1000 {
		t.Errorf("screenshot is %dx%d, want 1000 wide and the whole page (over 1000 high)", w, h)
	}
	if !bytes.HasPrefix(v.PDF, []byte("%PDF")) {
		t.Errorf("printing to PDF gave %d bytes that are not a PDF", len(v.PDF))
	}
	if keep := os.Getenv("LOOPKIT_REPORT_PNG"); keep != "" {
		if err := os.WriteFile(keep, v.Screenshot, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
