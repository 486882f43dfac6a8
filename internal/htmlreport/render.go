package htmlreport

import (
	"bufio"
	_ "embed"
	"fmt"
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
	bw := bufio.NewWriterSize(controls{w}, 64<<10)
	if err := reportT().ExecuteTemplate(bw, "report", p); err != nil {
		return err
	}
	return bw.Flush()
}

// controls passes a page on with each control byte a record can carry
// (in a run's name, a file's name or content, a command: ESC, BEL, ...)
// written as \x1b: html/template leaves them, a browser shows nothing of
// them, and a page read with cat must not drive the terminal. Tab, newline
// and carriage return stay. Control bytes never occur inside a multi-byte
// UTF-8 character, so each chunk is safe on its own.
type controls struct{ w io.Writer }

func (c controls) Write(p []byte) (int, error) {
	start := 0
	for i, b := range p {
		if (b >= 0x20 && b != 0x7f) || b == '\t' || b == '\n' || b == '\r' {
			continue
		}
		if _, err := c.w.Write(p[start:i]); err != nil {
			return start, err
		}
		if _, err := fmt.Fprintf(c.w, `\x%02x`, b); err != nil {
			return i, err
		}
		start = i + 1
	}
	if _, err := c.w.Write(p[start:]); err != nil {
		return start, err
	}
	return len(p), nil
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
