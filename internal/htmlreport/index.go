package htmlreport

import (
	"bufio"
	"io"
	"net/url"
	"time"

	"github.com/loopkit/loopkit/internal/view"
)

type indexRow struct {
	view.RunInfo
	Status string
	Href   string
	Age    string
}

type indexPage struct {
	Runs      []indexRow
	Generated string
}

// FileName is the name --all gives a run's page, which the index links to.
func FileName(id string) string { return id + ".html" }

// WriteIndex renders the list of runs, each linking to its page.
func WriteIndex(w io.Writer, runs []view.RunInfo, o Options) error {
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	p := indexPage{}
	if !o.Now.IsZero() {
		p.Generated = o.Now.UTC().Format("2006-01-02 15:04:05Z")
	}
	for _, r := range runs {
		p.Runs = append(p.Runs, indexRow{RunInfo: r, Status: r.StatusMark(),
			Href: (&url.URL{Path: FileName(r.Run.RunID)}).String(), Age: view.Age(r.Run.CreatedAt, now)})
	}
	c := &controls{w: w}
	bw := bufio.NewWriterSize(c, 64<<10)
	if err := indexT().ExecuteTemplate(bw, "index", p); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return c.end()
}
