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
// A run named index would take the index's own name: its page starts with
// '_', which no run id does, so no other run's page can have that name.
func FileName(id string) string {
	if id == "index" {
		return "_index.html"
	}
	return id + ".html"
}

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
