package runconfig

import "time"

// MaxUnsaved bounds the time since the last checkpoint of the drivers'
// working time that counts: the holder saves every 10 s, so more is the
// wall clock jumping (NTP setting a VM right, hours ahead) or a holder
// gone, not work.
const MaxUnsaved = 5 * time.Minute

// Driven is how long the run's drivers have worked, up to now: the
// checkpoint (driven_ms) plus the time since it (at most MaxUnsaved).
func (s *Settings) Driven(now time.Time) time.Duration {
	ms := s.DrivenMS
	if s.DrivenAt != 0 && !now.IsZero() {
		ms += min(max(0, now.UnixMilli()-s.DrivenAt), MaxUnsaved.Milliseconds())
	}
	return time.Duration(ms) * time.Millisecond
}

// Fold checkpoints the working time: driven_ms becomes the count up to
// now, and driven_at now. A run no driver works on (driven_at unset) gains
// nothing.
func (s *Settings) Fold(now time.Time) {
	if s.DrivenAt == 0 || now.IsZero() {
		return
	}
	s.DrivenMS = s.Driven(now).Milliseconds()
	s.DrivenAt = now.UnixMilli()
}

// Deadline is when a step and its validation must end under
// --max-duration: what is left of it plus the grace, from now; false
// without a cap.
func (s *Settings) Deadline(now time.Time) (time.Time, bool) {
	limit := s.MaxDuration.D()
	if limit <= 0 || now.IsZero() {
		return time.Time{}, false
	}
	return now.Add(max(limit-s.Driven(now), 0) + s.DurationGrace.D()), true
}
