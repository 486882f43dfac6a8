package loopview

import (
	"time"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/view"
	"github.com/loopkit/loopkit/internal/view/columns"
	"github.com/loopkit/loopkit/internal/view/jsonobj"
)

type runsCmd struct {
	filterOpts
	jsonOpts
}

func (o *runsCmd) run(c *ctx, args []string) error {
	if len(args) > 0 {
		return c.env.UsageError("runs takes no arguments, got %q", args[0])
	}
	filters, jq, err := c.compile(&o.filterOpts, `.status == "failed" or .status == "stuck"`, &o.jsonOpts)
	if err != nil {
		return err
	}
	runs, err := view.LoadRuns(c.st, func(id string, err error) {
		c.env.Log.Warn("run left out: run.json unreadable", "run", id, "err", err)
	})
	if err != nil {
		return cli.Failf("%w", err)
	}
	var keep []view.RunInfo
	var values []any
	for _, ri := range runs {
		if o.Last > 0 && len(keep) == o.Last {
			break
		}
		var v any
		if len(filters) > 0 || jq != nil {
			if v, err = jsonobj.Full(ri.JSON()); err != nil {
				c.fail("run %s: run.json: %v", ri.Run.RunID, err)
				continue
			}
		}
		if ok, err := matchAll(filters, v); err != nil {
			c.fail("run %s: %v", ri.Run.RunID, err)
			continue
		} else if !ok {
			continue
		}
		keep, values = append(keep, ri), append(values, v)
	}
	if !o.JSON && jq == nil {
		return columns.Runs(c.env.Stdout, c.style, keep, time.Now())
	}
	for i, ri := range keep {
		id := ri.Run.RunID
		if err := c.writeJSON(ri.JSON(), values[i], jq, o.Raw, func() string { return "run " + id }); err != nil {
			return err
		}
	}
	return nil
}
