package loopexport

import (
	"os"
	"time"

	"github.com/loopkit/loopkit/internal/store"
)

// seen is what a follow knows of each run's files when it last sent the
// run whole: a run none of whose files changed since has nothing new, and
// is not read again (a follow of 500 idle runs re-read all their records
// every interval, a quarter of a core). A run that failed on its own is
// tried again once it changes, or after a wait that doubles from 10s to
// 5m while it fails unchanged.
type seen map[string]runSeen

type runSeen struct {
	files [4]os.FileInfo
	retry time.Time     // zero: sent whole; else failed, tried again then
	wait  time.Duration // the wait before retry
}

// failed notes a run's own failure: unchanged, it is tried again after a
// wait (the collector's limits may change), longer each time.
func (s seen) failed(id string, now runSeen) {
	now.wait = 10 * time.Second
	if was, ok := s[id]; ok && was.same(now) {
		now.wait = min(2*was.wait, 5*time.Minute)
	}
	now.retry = time.Now().Add(now.wait)
	s[id] = now
}

var runFiles = [4]string{store.RunFile, store.IterationsFile, store.AttemptsFile, store.EventsFile}

// look stats a run's files, before it is read.
func look(st *store.Store, id string) runSeen {
	var r runSeen
	for i, name := range runFiles {
		r.files[i], _ = os.Stat(st.RunPath(id, name))
	}
	return r
}

// same: no file was replaced, grown, cut or touched.
func (r runSeen) same(o runSeen) bool {
	for i, a := range r.files {
		b := o.files[i]
		if (a == nil) != (b == nil) || a != nil && (!os.SameFile(a, b) || a.Size() != b.Size() || !a.ModTime().Equal(b.ModTime())) {
			return false
		}
	}
	return true
}

// skip: the run is as it was when last sent whole, or failed and waits.
func (s seen) skip(id string, now runSeen) bool {
	was, ok := s[id]
	return ok && was.same(now) && (was.retry.IsZero() || time.Now().Before(was.retry))
}
