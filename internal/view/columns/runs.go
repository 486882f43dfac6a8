package columns

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/loopkit/loopkit/internal/view"
)

// Runs writes the runs list: id, name, status, iterations (passed/failed),
// tokens in/out, total duration, cost, age. Aligned under a header on a
// terminal (padded by visible width, so coloured statuses line up),
// tab-separated when piped.
func Runs(w io.Writer, style view.Style, runs []view.RunInfo, now time.Time) error {
	var rows [][]string
	if style.Align {
		rows = append(rows, []string{"RUN", "NAME", "STATUS", "ITER (PASS/FAIL)", "TOKENS IN/OUT", "DURATION", "COST", "AGE"})
	}
	for _, ri := range runs {
		r := ri.Run
		status := ri.StatusMark()
		rows = append(rows, []string{
			view.Escape(r.RunID, false), view.Escape(strings.TrimSpace(r.Name), false), style.Paint(view.RunColor(status), view.Escape(status, false)),
			fmt.Sprintf("%d (%d/%d)", r.Iteration, r.Passed, r.Failed),
			humanPtr(r.TotalInputTokens) + "/" + humanPtr(r.TotalOutputTokens),
			view.Millis(r.TotalDurationMs), view.Cost(r.TotalCostUSD), view.Age(r.CreatedAt, now),
		})
	}
	if !style.Align {
		for _, row := range rows {
			if _, err := fmt.Fprintln(w, strings.Join(row, "\t")); err != nil {
				return err
			}
		}
		return nil
	}
	return writeColumns(w, rows)
}

// writeColumns pads every cell but the last to its column's widest visible
// width plus two spaces.
func writeColumns(w io.Writer, rows [][]string) error {
	var widths []int
	for _, row := range rows {
		for i, c := range row {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], Cells(c))
		}
	}
	var b strings.Builder
	for _, row := range rows {
		b.Reset()
		for i, c := range row {
			b.WriteString(c)
			if i < len(row)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-Cells(c)+2))
			}
		}
		b.WriteByte('\n')
		if _, err := io.WriteString(w, b.String()); err != nil {
			return err
		}
	}
	return nil
}

func humanPtr(n *int64) string {
	if n == nil {
		return "-"
	}
	return view.Human(*n)
}
