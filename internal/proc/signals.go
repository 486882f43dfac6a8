package proc

import (
	"os"
	"os/signal"
	"syscall"
)

// stopSignals are the signals that stop a command and what it runs
// (Ctrl-\'s SIGQUIT as Ctrl-C's SIGINT, not Go's dump of its stacks).
var stopSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// ignoredAtStart are those the command was started with ignored (SIGHUP
// under nohup, SIGINT in a script's `&` job), read before anything asks
// for one: a Notify makes signal.Ignored false for good.
var ignoredAtStart = func() map[os.Signal]bool {
	m := map[os.Signal]bool{}
	for _, s := range stopSignals {
		if signal.Ignored(s) {
			m[s] = true
		}
	}
	return m
}()

// NotifyStop relays SIGINT, SIGTERM, SIGHUP and SIGQUIT to ch, except one the
// command was started with ignored: Go's Notify would catch it, so a
// terminal closing under nohup would stop the agent that bash, unable to
// trap an ignored signal, lets go on. Left ignored, it stays ignored in
// the children too, as nohup asks.
func NotifyStop(ch chan<- os.Signal) {
	for _, s := range stopSignals {
		if !ignoredAtStart[s] {
			signal.Notify(ch, s)
		}
	}
}
