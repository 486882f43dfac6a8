package proc

import (
	"os"
	"os/signal"
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
// as before. The returned func ends the relay.
func relayStop(pgid int) (end func()) {
	sigs, cont := make(chan os.Signal, 1), make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTSTP)
	signal.Notify(cont, syscall.SIGCONT)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case <-sigs:
			}
			if sid, err := unix.Getsid(0); err != nil || sid == unix.Getpgrp() {
				continue // orphaned: SIGTSTP stops no one here
			}
			select {
			case <-cont: // an old one
			default:
			}
			syscall.Kill(-pgid, syscall.SIGSTOP)
			// another thread may take the signal: kill returns before the
			// stop, and the SIGCONT that ends it says when to go on
			syscall.Kill(os.Getpid(), syscall.SIGSTOP)
			select {
			case <-done:
			case <-cont:
			}
			syscall.Kill(-pgid, syscall.SIGCONT)
		}
	}()
	return func() {
		signal.Stop(sigs)
		signal.Stop(cont)
		close(done)
	}
}
