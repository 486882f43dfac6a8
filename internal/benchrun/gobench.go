package benchrun

import (
	"syscall"
	"testing"
	"time"
)

// CPUPerOp starts counting this process's CPU time (user+sys); the
// function it returns, deferred in a benchmark, reports it per operation
// as "cpu-ns/op" beside Go's wall-clock ns/op. On a busy machine the two
// differ by the time the benchmark waited for a core.
func CPUPerOp(b *testing.B) func() {
	start := cpuTime()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
		}
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
