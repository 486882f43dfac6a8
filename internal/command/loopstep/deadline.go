package loopstep

import "time"

// deadline is when the whole step must end under the run's --max-duration
// (--deadline, Unix ms), retries and their backoff included; zero without
// one. With --run it is counted again from the run's working time, as
// loop-validate does: a clock set ahead since the driver decided cuts
// nothing the cap has time left for.
func (s *stepRun) deadline() time.Time {
	if s.opts.Deadline <= 0 {
		return time.Time{}
	}
	at := time.UnixMilli(s.opts.Deadline)
	if s.opts.Run != "" {
		if run, err := s.readRun(); err == nil {
			if d, ok := run.Settings.Deadline(time.Now()); ok {
				at = d
			}
		}
	}
	return at
}

// attemptTimeout is one attempt's timeout: --timeout, cut to what is left
// before the deadline (at least a millisecond: a step past it is cut at
// once, not left without a limit).
func (s *stepRun) attemptTimeout(deadline time.Time) time.Duration {
	t := s.opts.Timeout.D()
	if deadline.IsZero() {
		return t
	}
	if left := max(time.Until(deadline), time.Millisecond); t <= 0 || left < t {
		return left
	}
	return t
}
