package loopview

import "github.com/loopkit/loopkit/internal/cli"

// between prints the difference between the trees after iterations a and b.
func (o *diffCmd) between(c *ctx, id string, a, b int) error {
	return cli.Failf("run %s: comparing two iterations needs the trees they left, which this store does not keep yet", id)
}
