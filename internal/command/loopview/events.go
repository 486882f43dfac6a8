package loopview

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/view"
	"github.com/loopkit/loopkit/internal/view/jsonobj"
)

const eventsHelp = `[OPTIONS] [RUN]

Examples:
  $ loop-view events RUN
  $ loop-view events RUN --follow --json

One line per event of events.jsonl: time, type, then the event's fields as
key=value. --follow prints new events as they are appended and stops once
the run has ended (a run not there yet is waited for, as tail -F does), or
with exit 1 once no driver drives it (paused, or interrupted) or it
was deleted; with --json it is the run's live event stream.`

type eventsCmd struct {
	runOpt
	jsonOpts
	Follow   bool         `short:"f" long:"follow" description:"keep printing events as they are appended, until the run ends"`
	Interval cli.Duration `long:"interval" value-name:"D" default:"100ms" description:"with --follow, how often to look for new events"`
}

func (o *eventsCmd) run(c *ctx, args []string) error {
	runArg, _, err := c.positional(args, 1)
	if err != nil {
		return err
	}
	if o.Interval.D() <= 0 {
		return c.env.UsageError("--interval must be more than 0")
	}
	_, jq, err := c.compile(nil, "", &o.jsonOpts)
	if err != nil {
		return err
	}
	id, err := c.waitRun(runArg, o.Run, o.Follow) // --follow waits for the run, as tail and logs do
	if err != nil {
		return err
	}
	path := c.st.RunPath(id, store.EventsFile)
	emit := func(n int, line []byte) error {
		if !json.Valid(line) || !utf8.Valid(line) || !strings.HasPrefix(strings.TrimSpace(string(line)), "{") {
			c.fail("%s line %d: not a JSON object", path, n)
			return nil
		}
		if o.JSON || jq != nil {
			var v any
			if jq != nil {
				if v, err = jsonobj.Full(line); err != nil {
					c.fail("%s line %d: %v", path, n, err)
					return nil
				}
			}
			return c.writeJSON(line, v, jq, o.Raw, func() string { return "run " + id + " event" })
		}
		return c.writeEvent(line)
	}
	var off int64
	var lineNo int
	read := func() error {
		if o.Follow && off > 0 && !store.EndsLineAt(path, off) {
			// cut back (a status change the disk refused, store.CutBack)
			// or replaced: go on after the lines still there before off
			if off, lineNo, err = linesBefore(path, off); err != nil {
				return failure(err)
			}
			c.env.Log.Warn(fmt.Sprintf("%s was cut back or replaced: following on after its line %d", store.EventsFile, lineNo), "run", id)
		}
		off, lineNo, err = store.ScanFrom(path, off, lineNo, func(n int, _ int64, line []byte) error { return emit(n, line) })
		if err != nil {
			return failure(err)
		}
		return c.env.Stdout.Flush()
	}
	if !o.Follow {
		return read()
	}
	sigCtx, stop := c.env.Following()
	defer stop()
	for !c.st.RunExists(id) {
		select {
		case <-sigCtx.Done():
			return cli.Stopped(sigCtx)
		case <-time.After(o.Interval.D()):
		}
	}
	w := &view.RunWatch{St: c.st, ID: id}
	for {
		// the status first: every event appended before the end is read below
		_, done, end := w.Poll()
		if err := read(); err != nil {
			return err
		}
		if done && end != nil {
			return failure(end)
		}
		if done {
			return nil
		}
		select {
		case <-sigCtx.Done():
			return cli.Stopped(sigCtx)
		case <-time.After(o.Interval.D()):
		}
	}
}

// writeEvent prints one event as text: time, type, then its other fields
// in the order they were written, control characters escaped.
func (c *ctx) writeEvent(line []byte) error {
	var b strings.Builder
	var ts int64
	var typ string
	err := jsonobj.Scan(line, func(key string, raw []byte) error {
		switch key {
		case "ts":
			json.Unmarshal(raw, &ts)
		case "type":
			json.Unmarshal(raw, &typ)
		case "run_id":
		default:
			val := view.Escape(string(raw), false)
			var s string
			if len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
				val = view.Escape(s, false)
				// as logfmt: a text with a space or an = in it is quoted, so
				// a message's words never read as further fields
				if s == "" || strings.ContainsAny(s, " =\"\t") {
					val = strconv.Quote(s)
				}
			}
			// the key is someone's text as much as the value (the agent can write events.jsonl)
			b.WriteString(" " + view.Escape(key, false) + "=" + val)
		}
		return nil
	})
	if err != nil {
		var se *jsonobj.SyntaxError
		if errors.As(err, &se) {
			c.fail("event: %v", err)
			return nil
		}
		return err
	}
	stamp := time.UnixMilli(ts).UTC().Format("2006-01-02T15:04:05.000Z")
	_, err = c.env.Stdout.WriteString(stamp + " " + view.Escape(typ, false) + b.String() + "\n")
	return err
}

// linesBefore is the end and the count of the whole lines of path that end
// at or before off.
func linesBefore(path string, off int64) (int64, int, error) {
	past := errors.New("past off")
	end, n, err := store.ScanFrom(path, 0, 0, func(_ int, at int64, line []byte) error {
		if at+int64(len(line))+1 > off {
			return past
		}
		return nil
	})
	if errors.Is(err, past) {
		return end, n - 1, nil
	}
	return end, n, err
}

func (o *eventsCmd) waits() bool { return o.Follow }
