package htmlreport

import (
	"regexp"
	"strconv"
	"testing"
)

// TestChartLastLabel: past 400 iterations the charts draw buckets; the
// last label under them is the last iteration (it said 599 of 600, the
// first of the last bucket) and ends inside the chart (centred on the
// last bar, it was cut: "59").
func TestChartLastLabel(t *testing.T) {
	its := make([]*iteration, 600)
	vals := make([]float64, len(its))
	for i := range its {
		its[i] = &iteration{N: i + 1, Status: "fail"}
		vals[i] = float64(i)
	}
	label := regexp.MustCompile(`<text x="([0-9.]+)" y="117" class="axis" text-anchor="(\w+)">(\d+)</text>`)
	for name, svg := range map[string]string{"bars": string(bars(its, vals, "t", dollars)), "line": string(line(its, vals, "t", dollars))} {
		ms := label.FindAllStringSubmatch(svg, -1)
		if len(ms) != 2 {
			t.Fatalf("%s: %d iteration labels, want the first and the last: %q", name, len(ms), ms)
		}
		last := ms[1]
		if x, err := strconv.ParseFloat(last[1], 64); err != nil || x > chartW || last[3] != "600" || last[2] != "end" {
			t.Errorf("%s: last label %q, want 600 ending at the chart's right edge", name, last[0])
		}
	}
}
