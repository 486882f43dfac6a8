//go:build !linux

package benchrun

import (
	"context"
	"syscall"
)

// becomeSubreaper is Linux's; elsewhere orphans are not counted.
func becomeSubreaper() error { return nil }

func reapOrphans(context.Context) []*syscall.Rusage { return nil }
