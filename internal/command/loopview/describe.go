package loopview

import (
	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/view"
	"github.com/loopkit/loopkit/internal/view/jsonobj"
)

type describeCmd struct {
	runOpt
	jsonOpts
}

func (o *describeCmd) run(c *ctx, args []string) error {
	runArg, _, err := c.positional(args, 1)
	if err != nil {
		return err
	}
	_, jq, err := c.compile(nil, "", &o.jsonOpts)
	if err != nil {
		return err
	}
	id, err := c.resolveRun(runArg, o.Run, false)
	if err != nil {
		return err
	}
	ri, err := view.LoadRun(c.st, id)
	if err != nil {
		return cli.Failf("%w", err)
	}
	if err := view.LoadReview(c.st, &ri); err != nil {
		c.env.Log.Warn("the last iteration's review is unknown", "run", id, "err", err)
	}
	if ri.Attempts, err = view.LoadAttempts(c.st, id); err != nil {
		c.env.Log.Warn("the run's attempts are unknown", "run", id, "err", err)
	}
	live, err := c.st.IsLive(id)
	if err != nil {
		c.env.Log.Warn("cannot tell whether the run is live", "run", id, "err", err)
	}
	paths := view.RunPaths(c.st, id)
	if !o.JSON && jq == nil {
		return view.Describe(c.env.Stdout, c.style, ri, paths, live)
	}
	line, err := view.DescribeJSON(ri, paths, live)
	if err != nil {
		return cli.Failf("%w", err)
	}
	var v any
	if jq != nil {
		if v, err = jsonobj.Full(line); err != nil {
			return cli.Failf("run %s: %w", id, err)
		}
	}
	return c.writeJSON(line, v, jq, o.Raw, func() string { return "run " + id })
}

// matchAll reports whether v passes every filter.
func matchAll(filters []view.Filter, v any) (bool, error) {
	for _, f := range filters {
		ok, err := f.Match(v)
		if err != nil {
			return false, err
		}
		if !ok {
			return false, nil
		}
	}
	return true, nil
}
