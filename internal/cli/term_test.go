package cli

import (
	"os"
	"testing"
)

// TestIsTerminal: a terminal is what answers a terminal's ioctl, not any
// character device: /dev/null is one, and taking it for a terminal started
// the full-screen view on `loop-view </dev/null` (bubbletea then failed on
// its epoll) and would draw it into `loop-view >/dev/null`. That a real
// terminal is one, internal/tui's tests on a pseudo-terminal show.
func TestIsTerminal(t *testing.T) {
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for name, f := range map[string]*os.File{"/dev/null": null, "a pipe": r, "nil": nil} {
		if IsTerminal(f) {
			t.Errorf("%s taken for a terminal", name)
		}
	}
}
