package htmlreport

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// browser drives headless Chromium over the DevTools protocol on a pipe
// (--remote-debugging-pipe: it reads commands on fd 3, writes on fd 4,
// each message JSON ended by a NUL byte), so the test sees what the page
// really did: every request, console message and exception.
type browser struct {
	cmd    *exec.Cmd
	w      *os.File
	msgs   chan map[string]any
	id     int
	events []map[string]any
}

// chromium finds the browser, or skips the test.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("chromium not installed (CI installs it): the page is checked in a browser there")
	return ""
}

func startBrowser(t *testing.T) *browser {
	t.Helper()
	bin := chromium(t)
	toChrome, ourEnd, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	fromChrome, chromeEnd, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
		"--hide-scrollbars", "--user-data-dir="+t.TempDir(), "--remote-debugging-pipe", "about:blank")
	cmd.ExtraFiles = []*os.File{toChrome, chromeEnd}
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	toChrome.Close()
	chromeEnd.Close()
	b := &browser{cmd: cmd, w: ourEnd, msgs: make(chan map[string]any, 1024)}
	go func() {
		r := bufio.NewReaderSize(fromChrome, 1<<20)
		defer close(b.msgs)
		for {
			data, err := r.ReadBytes(0)
			if err != nil {
				return
			}
			var m map[string]any
			if json.Unmarshal(data[:len(data)-1], &m) == nil {
				b.msgs <- m
			}
		}
	}()
	t.Cleanup(func() {
		b.w.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	return b
}

// call sends one command and waits for its answer, keeping the events
// that arrive meanwhile.
func (b *browser) call(session, method string, params map[string]any) (map[string]any, error) {
	b.id++
	msg := map[string]any{"id": b.id, "method": method, "params": params}
	if params == nil {
		msg["params"] = map[string]any{}
	}
	if session != "" {
		msg["sessionId"] = session
	}
	data, _ := json.Marshal(msg)
	if _, err := b.w.Write(append(data, 0)); err != nil {
		return nil, err
	}
	timeout := time.After(60 * time.Second)
	for {
		select {
		case m, ok := <-b.msgs:
			if !ok {
				return nil, errors.New("browser closed the pipe")
			}
			if id, _ := m["id"].(float64); int(id) == b.id {
				if e, ok := m["error"]; ok {
					return nil, fmt.Errorf("%s: %v", method, e)
				}
				res, _ := m["result"].(map[string]any)
				return res, nil
			}
			b.events = append(b.events, m)
		case <-timeout:
			return nil, fmt.Errorf("%s: no answer in 60s", method)
		}
	}
}

// wait reads events until one named method arrives.
func (b *browser) wait(method string) error {
	for _, e := range b.events {
		if e["method"] == method {
			return nil
		}
	}
	timeout := time.After(60 * time.Second)
	for {
		select {
		case m, ok := <-b.msgs:
			if !ok {
				return errors.New("browser closed the pipe")
			}
			b.events = append(b.events, m)
			if m["method"] == method {
				return nil
			}
		case <-timeout:
			return fmt.Errorf("no %s in 60s", method)
		}
	}
}

// visit is what loading a page did.
type visit struct {
	Problems   []string // failed or outside requests, console errors, exceptions
	Requests   []string
	Screenshot []byte
	PDF        []byte
	Width      float64 // of the laid-out page: wider than the window scrolls sideways
}

// load opens url in a new tab of width x height, waits for the load event,
// takes a full-page screenshot and prints the page to PDF.
func (b *browser) load(url string, width int) (*visit, error) {
	res, err := b.call("", "Target.createTarget", map[string]any{"url": "about:blank"})
	if err != nil {
		return nil, err
	}
	res, err = b.call("", "Target.attachToTarget", map[string]any{"targetId": res["targetId"], "flatten": true})
	if err != nil {
		return nil, err
	}
	s, _ := res["sessionId"].(string)
	for _, m := range []string{"Page.enable", "Runtime.enable", "Network.enable", "Log.enable"} {
		if _, err := b.call(s, m, nil); err != nil {
			return nil, err
		}
	}
	metrics := map[string]any{"width": width, "height": 800, "deviceScaleFactor": 1, "mobile": false}
	if _, err := b.call(s, "Emulation.setDeviceMetricsOverride", metrics); err != nil {
		return nil, err
	}
	if _, err := b.call(s, "Page.navigate", map[string]any{"url": url}); err != nil {
		return nil, err
	}
	if err := b.wait("Page.loadEventFired"); err != nil {
		return nil, err
	}
	v := &visit{}
	lm, err := b.call(s, "Page.getLayoutMetrics", nil)
	if err != nil {
		return nil, err
	}
	if size, ok := lm["cssContentSize"].(map[string]any); ok {
		v.Width, _ = size["width"].(float64)
		if h, ok := size["height"].(float64); ok {
			metrics["height"] = min(int(h)+1, 8000)
		}
	}
	if _, err := b.call(s, "Emulation.setDeviceMetricsOverride", metrics); err != nil {
		return nil, err
	}
	shot, err := b.call(s, "Page.captureScreenshot", map[string]any{"format": "png"})
	if err != nil {
		return nil, err
	}
	v.Screenshot, _ = base64.StdEncoding.DecodeString(fmt.Sprint(shot["data"]))
	pdf, err := b.call(s, "Page.printToPDF", map[string]any{"printBackground": true})
	if err != nil {
		return nil, err
	}
	v.PDF, _ = base64.StdEncoding.DecodeString(fmt.Sprint(pdf["data"]))
	for _, e := range b.events {
		if e["sessionId"] != s {
			continue
		}
		p, _ := e["params"].(map[string]any)
		switch e["method"] {
		case "Network.requestWillBeSent":
			req, _ := p["request"].(map[string]any)
			u := fmt.Sprint(req["url"])
			v.Requests = append(v.Requests, u)
			if u != url && !strings.HasPrefix(u, "data:") && !strings.HasPrefix(u, "about:") {
				v.Problems = append(v.Problems, "request to "+u)
			}
		case "Network.loadingFailed":
			v.Problems = append(v.Problems, fmt.Sprintf("request failed: %v", p["errorText"]))
		case "Runtime.consoleAPICalled":
			if t := fmt.Sprint(p["type"]); t == "error" || t == "warning" || t == "assert" {
				v.Problems = append(v.Problems, fmt.Sprintf("console %s: %v", t, p["args"]))
			}
		case "Runtime.exceptionThrown":
			v.Problems = append(v.Problems, fmt.Sprintf("exception: %v", p["exceptionDetails"]))
		case "Log.entryAdded":
			if entry, _ := p["entry"].(map[string]any); entry["level"] == "error" {
				v.Problems = append(v.Problems, fmt.Sprintf("log error: %v", entry["text"]))
			}
		}
	}
	return v, nil
}
