package htmlreport

import (
	"fmt"
	"html"
	"html/template"
	"strings"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/view"
)

// Chart geometry, in SVG user units (the SVG scales to the page width).
const (
	chartW, chartH = 400, 120
	maxBarW        = 32.0
	padL, padB     = 44, 16
	timelineW      = 800
	maxBars        = 400 // more iterations are drawn in buckets
)

// Outcome colours, the same in the timeline, the bars and the headings.
var statusColor = map[string]string{"pass": "#1a7f37", "fail": "#cf222e", "error": "#bf8700"}

type charts struct {
	Timeline, Duration, Tokens, Cost, Cumulative, Failing template.HTML
	HasTokens, HasCost                                    bool
}

func makeCharts(its []*iteration) charts {
	var c charts
	if len(its) == 0 {
		return c
	}
	dur := make([]float64, len(its))
	tok := make([]float64, len(its))
	cost := make([]float64, len(its))
	cum := make([]float64, len(its))
	fails := make([]float64, len(its))
	total := 0.0
	for i, it := range its {
		dur[i] = float64(it.DurationMs)
		tok[i] = float64(it.In + it.Out)
		cost[i] = it.Cost
		total = record.AddCost(total, record.AddCost(it.Cost, it.AttemptCost))
		cum[i] = total
		fails[i] = float64(len(it.Failures))
		c.HasTokens = c.HasTokens || tok[i] > 0
		c.HasCost = c.HasCost || it.HasCost || it.AttemptCost > 0
	}
	c.Timeline = timeline(its)
	c.Duration = bars(its, dur, "validation time", func(v float64) string { return view.Millis(int64(v)) })
	c.Tokens = bars(its, tok, "tokens (in + out)", func(v float64) string { return view.Human(int64(v)) })
	c.Cost = bars(its, cost, "cost", dollars)
	c.Cumulative = line(its, cum, "cumulative cost", dollars)
	c.Failing = bars(its, fails, "failing tests", func(v float64) string { return fmt.Sprint(int(v)) })
	return c
}

func dollars(v float64) string { return fmt.Sprintf("$%.2f", v) }

// bucket maps bar i of n to the iterations it covers, so at most maxBars are drawn.
func bucket(n int) (bars int, span func(i int) (from, to int)) {
	bars = min(n, maxBars)
	return bars, func(i int) (int, int) { return i * n / bars, (i + 1) * n / bars }
}

// worst is the outcome a bucket is coloured with: error over fail over pass.
func worst(its []*iteration) string {
	s := "pass"
	for _, it := range its {
		switch {
		case it.Status == "error":
			return "error"
		case it.Status == "fail":
			s = "fail"
		}
	}
	return s
}

func label(its []*iteration) string {
	if len(its) == 1 {
		return fmt.Sprintf("iteration %d", its[0].N)
	}
	return fmt.Sprintf("iterations %d–%d", its[0].N, its[len(its)-1].N)
}

// timeline is one cell per iteration coloured by outcome, linking to its section.
func timeline(its []*iteration) template.HTML {
	n, span := bucket(len(its))
	w := float64(timelineW) / float64(n)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="timeline" viewBox="0 0 %d 28" preserveAspectRatio="none" role="img" aria-label="timeline of %s">`, timelineW, view.Plural(len(its), "iteration"))
	for i := 0; i < n; i++ {
		from, to := span(i)
		group := its[from:to]
		st := worst(group)
		target := group[len(group)-1]
		fmt.Fprintf(&b, `<a href="#iter-%d"><rect x="%.2f" y="2" width="%.2f" height="24" fill="%s" class="%s"><title>%s</title></rect></a>`,
			target.N, float64(i)*w, max(w-1, 0.5), statusColor[st], st, html.EscapeString(label(group)+": "+outcomes(group)))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

func outcomes(its []*iteration) string {
	if len(its) == 1 {
		return fmt.Sprintf("%s, exit %d", its[0].Status, its[0].ExitCode)
	}
	counts := map[string]int{}
	for _, it := range its {
		counts[it.Status]++
	}
	return fmt.Sprintf("%d pass, %d fail, %d error", counts["pass"], counts["fail"], counts["error"])
}

// axis draws the frame, the top value and the iteration numbers.
func axis(b *strings.Builder, its []*iteration, top float64, title string, format func(float64) string) {
	fmt.Fprintf(b, `<svg class="chart" viewBox="0 0 %d %d" role="img" aria-label="%s per iteration">`, chartW, chartH, html.EscapeString(title))
	fmt.Fprintf(b, `<text x="%d" y="12" class="axis" text-anchor="end">%s</text>`, padL-6, html.EscapeString(format(top)))
	fmt.Fprintf(b, `<text x="%d" y="%d" class="axis" text-anchor="end">0</text>`, padL-6, chartH-padB)
	fmt.Fprintf(b, `<line x1="%d" y1="4" x2="%d" y2="%d" class="frame"/>`, padL, padL, chartH-padB)
	fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d" class="frame"/>`, padL, chartH-padB, chartW, chartH-padB)
}

// xLabels writes iteration numbers under the bars: each one when there are
// few, else the first and the last iteration, the last ending at the last
// bar's right edge (centred there, it was cut by the chart's edge).
func xLabels(b *strings.Builder, its []*iteration, n int, w float64, span func(int) (int, int)) {
	for i := 0; i < n; i++ {
		if n > 16 && i != 0 && i != n-1 {
			continue
		}
		from, to := span(i)
		if n > 16 && i == n-1 {
			fmt.Fprintf(b, `<text x="%.2f" y="%d" class="axis" text-anchor="end">%d</text>`, float64(padL)+float64(n)*w, chartH-3, its[to-1].N)
			continue
		}
		fmt.Fprintf(b, `<text x="%.2f" y="%d" class="axis" text-anchor="middle">%d</text>`, float64(padL)+(float64(i)+0.5)*w, chartH-3, its[from].N)
	}
}

// bars is a bar chart of one value per iteration, bars coloured by outcome.
func bars(its []*iteration, vals []float64, title string, format func(float64) string) template.HTML {
	n, span := bucket(len(its))
	top := 0.0
	for _, v := range vals {
		top = max(top, v)
	}
	var b strings.Builder
	axis(&b, its, top, title, format)
	plotH := float64(chartH - padB - 4)
	w := min(float64(chartW-padL)/float64(n), maxBarW)
	for i := 0; i < n; i++ {
		from, to := span(i)
		v := 0.0
		for _, x := range vals[from:to] {
			v = max(v, x)
		}
		h := 0.0
		if top > 0 {
			h = v / top * plotH
		}
		st := worst(its[from:to])
		fmt.Fprintf(&b, `<rect x="%.2f" y="%.2f" width="%.2f" height="%.2f" fill="%s"><title>%s</title></rect>`,
			float64(padL)+float64(i)*w, float64(chartH-padB)-h, max(w-1, 0.5), h, statusColor[st],
			html.EscapeString(label(its[from:to])+": "+format(v)))
	}
	xLabels(&b, its, n, w, span)
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// line is a line chart of a running total.
func line(its []*iteration, vals []float64, title string, format func(float64) string) template.HTML {
	top := vals[len(vals)-1]
	for _, v := range vals {
		top = max(top, v)
	}
	var b strings.Builder
	axis(&b, its, top, title, format)
	plotH := float64(chartH - padB - 4)
	n, span := bucket(len(vals))
	step := min(float64(chartW-padL)/float64(n), maxBarW)
	pts := make([]string, 0, n)
	for i := 0; i < n; i++ {
		_, to := span(i)
		v := vals[to-1]
		y := float64(chartH - padB)
		if top > 0 {
			y -= v / top * plotH
		}
		pts = append(pts, fmt.Sprintf("%.2f,%.2f", float64(padL)+(float64(i)+0.5)*step, y))
	}
	xLabels(&b, its, n, step, span)
	fmt.Fprintf(&b, `<polyline points="%s" class="cumulative"><title>%s</title></polyline>`, strings.Join(pts, " "), html.EscapeString(title+": "+format(top)))
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}
