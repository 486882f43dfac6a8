package htmlreport

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/view"
)

// TestReportKeepsNewestSignals: the signals table holds the newest
// view.MaxSignals and says how many earlier ones it leaves out, as the
// page keeps sections for the last iterations only. A run of 500,000
// events made a 75 MB page (146 MB of RSS to write it).
func TestReportKeepsNewestSignals(t *testing.T) {
	st, id := fixture(t, 3) // one signal, then:
	const more = view.MaxSignals + 49
	for i := 1; i <= more; i++ {
		line := fmt.Sprintf(`{"ts":%d,"run_id":%q,"type":"RATE_LIMITED","iteration":3,"wait_ms":%d}`, i+1, id, i)
		if err := store.AppendLine(st.RunPath(id, store.EventsFile), []byte(line)); err != nil {
			t.Fatal(err)
		}
	}
	var b bytes.Buffer
	if err := Write(&b, st, id, Options{}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if n := strings.Count(page, "<tr><td>RATE_LIMITED</td>"); n != view.MaxSignals {
		t.Errorf("%d signal rows, want the newest %d", n, view.MaxSignals)
	}
	if strings.Contains(page, "<tr><td>WATCHDOG_SIGNAL</td>") || !strings.Contains(page, fmt.Sprintf(`{&#34;wait_ms&#34;:%d}`, more)) {
		t.Error("the rows are not the newest signals")
	}
	if want := "The first 50 signals are left out"; !strings.Contains(page, want) {
		t.Errorf("page lacks %q", want)
	}
}
