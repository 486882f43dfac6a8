//go:build !linux

package proc

import "time"

// AdoptLeftovers: only Linux lets a process adopt what its children leave
// (a child subreaper).
func AdoptLeftovers() {}

// KillLeftovers: nothing is adopted elsewhere.
func KillLeftovers(time.Duration, int) int { return 0 }

func adopting() bool { return false }

func reapOrphans(int) {}
