package htmlreport

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPrintWithoutScript: printing opens every <details> (the validation
// output, the diff, the agent's message) with scripts disabled too, as a
// mail preview or an artifact viewer's Content-Security-Policy leaves the
// page: the inline script that opens them does not run there, and the
// printed report lost every output.
func TestPrintWithoutScript(t *testing.T) {
	b := startBrowser(t)
	st := failedRun(t, "r", "make test", "calc.go")
	var page bytes.Buffer
	if err := Write(&page, st, "r1", Options{}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(path, page.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	text, _, err := b.printed("file://" + path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "[no output]") {
		t.Errorf("the printed page hides the validation output:\n%s", text)
	}
}

// printed loads url in a 600-pixel window with scripts disabled and
// returns the text a printer gets and the width of the page it lays out.
func (b *browser) printed(url string) (string, float64, error) {
	res, err := b.call("", "Target.createTarget", map[string]any{"url": "about:blank"})
	if err != nil {
		return "", 0, err
	}
	res, err = b.call("", "Target.attachToTarget", map[string]any{"targetId": res["targetId"], "flatten": true})
	if err != nil {
		return "", 0, err
	}
	s, _ := res["sessionId"].(string)
	steps := []struct {
		method string
		params map[string]any
	}{
		{"Page.enable", nil},
		{"Emulation.setScriptExecutionDisabled", map[string]any{"value": true}},
		{"Emulation.setEmulatedMedia", map[string]any{"media": "print"}},
		{"Emulation.setDeviceMetricsOverride", map[string]any{"width": 600, "height": 800, "deviceScaleFactor": 1, "mobile": false}},
	}
	for _, c := range steps {
		if _, err := b.call(s, c.method, c.params); err != nil {
			return "", 0, err
		}
	}
	b.events = nil // wait for this page's load, not an earlier one's
	if _, err := b.call(s, "Page.navigate", map[string]any{"url": url}); err != nil {
		return "", 0, err
	}
	if err := b.wait("Page.loadEventFired"); err != nil {
		return "", 0, err
	}
	var got [2]any
	for i, js := range []string{"document.body.innerText", "document.documentElement.scrollWidth"} {
		res, err = b.call(s, "Runtime.evaluate", map[string]any{"expression": js, "returnByValue": true})
		if err != nil {
			return "", 0, err
		}
		r, _ := res["result"].(map[string]any)
		got[i] = r["value"]
	}
	w, _ := got[1].(float64)
	return fmt.Sprint(got[0]), w, nil
}
