package htmlreport

import (
	"bufio"
	_ "embed"
	"html/template"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/view"
)

var (
	//go:embed report.tmpl
	reportTmpl string
	//go:embed index.tmpl
	indexTmpl string
	//go:embed style.css
	styleCSS string
)

func funcs() template.FuncMap {
	return template.FuncMap{
		"millis": view.Millis,
		"human":  view.Human,
		"tokens": func(n *int64) string {
			if n == nil {
				return "-" // unknown: the agent reported none
			}
			return view.Human(*n)
		},
		"cost":    view.Cost,
		"dollars": dollars,
		"stamp": func(ms int64) string {
			return view.Stamp(&ms)
		},
		"detailed":  func(skipped, total int) int { return total - skipped },
		"diffLines": diffLines,
		// a name or command on one line: \n, not a newline a browser
		// draws as a space; a bidirectional override as \u202e
		"line": func(s string) string { return view.Escape(s, false) },
	}
}

// The templates are parsed on first use: parsing them took half a
// millisecond at every start of loop-view, report or not.
var (
	reportT = sync.OnceValue(func() *template.Template { return parse("report", reportTmpl) })
	indexT  = sync.OnceValue(func() *template.Template { return parse("index", indexTmpl) })
)

func parse(name, text string) *template.Template {
	return template.Must(template.Must(template.New(name).Funcs(funcs()).Parse(text)).New("style").Parse(styleCSS))
}

// Options of a report.
type Options struct {
	// Now stamps the footer; zero leaves the time out (reproducible pages).
	Now time.Time
}

// Write renders run id of st as one HTML page.
func Write(w io.Writer, st *store.Store, id string, o Options) error {
	p, err := load(st, id)
	if err != nil {
		return err
	}
	if !o.Now.IsZero() {
		p.Generated = o.Now.UTC().Format("2006-01-02 15:04:05Z")
	}
	c := &controls{w: w}
	bw := bufio.NewWriterSize(c, 64<<10)
	if err := reportT().ExecuteTemplate(bw, "report", p); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return c.end()
}

type diffLine struct{ Class, Text string }

// diffLines splits a patch into runs of lines of one kind (header, hunk,
// addition, removal, context) for colouring, as git diff does; one span
// per run keeps a long diff small.
func diffLines(patch string) []diffLine {
	var out []diffLine
	header := false
	for _, l := range strings.SplitAfter(patch, "\n") {
		if l == "" {
			continue
		}
		c := ""
		switch {
		case strings.HasPrefix(l, "diff --git "):
			header, c = true, "head"
		case strings.HasPrefix(l, "@@"):
			header, c = false, "hunk"
		case header:
			c = "head"
		case strings.HasPrefix(l, "+"):
			c = "add"
		case strings.HasPrefix(l, "-"):
			c = "del"
		}
		if n := len(out); n > 0 && out[n-1].Class == c {
			out[n-1].Text += l
			continue
		}
		out = append(out, diffLine{Class: c, Text: l})
	}
	return out
}
