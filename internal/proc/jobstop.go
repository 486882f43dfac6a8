package proc

import (
	"os"
	"os/signal"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// relayStop makes a terminal's Ctrl-Z stop the child with this process,
// and fg or bg continue it: the child has a session of its own, which the
// terminal's signals never reach, so the shell said "Stopped" while the
// agent went on editing and paying. The child's group gets SIGSTOP (the
// kernel drops SIGTSTP for a group orphaned as its is), then this process
// stops too, as SIGTSTP's default would have, and continues the child
// once continued. In a group the kernel would not stop (one a session's
// leader heads: script(1), a container's first process) nothing happens,
// as before. The returned func ends the relay for this child.
//
// The catch stays for the process's life: once Notify has been called,
// Go drops a SIGTSTP no channel asks for (signal.Stop does not give the
// default back), so a Ctrl-Z between two children (a retry's backoff)
// stopped nothing and the next agent call ran under a "Stopped" job.
func relayStop(pgid int) (end func()) {
	relayOnce.Do(startRelay)
	relayMu.Lock()
	relayGroups[pgid]++
	relayMu.Unlock()
	return func() {
		relayMu.Lock()
		if relayGroups[pgid]--; relayGroups[pgid] <= 0 {
			delete(relayGroups, pgid)
		}
		relayMu.Unlock()
	}
}

var (
	relayOnce   sync.Once
	relayMu     sync.Mutex
	relayGroups = map[int]int{} // the running children's groups
)

func startRelay() {
	sigs, cont := make(chan os.Signal, 1), make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTSTP)
	signal.Notify(cont, syscall.SIGCONT)
	go func() {
		for range sigs {
			if sid, err := unix.Getsid(0); err != nil || sid == unix.Getpgrp() {
				continue // orphaned: SIGTSTP stops no one here
			}
			select {
			case <-cont: // an old one
			default:
			}
			relayMu.Lock()
			groups := make([]int, 0, len(relayGroups))
			for g := range relayGroups {
				groups = append(groups, g)
			}
			relayMu.Unlock()
			for _, g := range groups {
				syscall.Kill(-g, syscall.SIGSTOP)
			}
			// another thread may take the signal: kill returns before the
			// stop, and the SIGCONT that ends it says when to go on
			syscall.Kill(os.Getpid(), syscall.SIGSTOP)
			<-cont
			for _, g := range groups {
				syscall.Kill(-g, syscall.SIGCONT)
			}
		}
	}()
}
