package queue

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

type waits struct {
	mu   sync.Mutex
	said []string
}

func (w *waits) fn(runs []string, why string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.said = append(w.said, strings.Join(runs, ",")+": "+why)
}

func (w *waits) all() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.said, "\n")
}

func acquire(t *testing.T, c Config) <-chan *Held {
	t.Helper()
	ch := make(chan *Held, 1)
	go func() {
		h, err := Acquire(context.Background(), c)
		if err != nil {
			t.Error(err)
		}
		ch <- h
	}()
	return ch
}

func got(t *testing.T, ch <-chan *Held) *Held {
	t.Helper()
	select {
	case h := <-ch:
		return h
	case <-time.After(10 * time.Second):
		t.Fatal("no slot after 10s")
	}
	return nil
}

func none(t *testing.T, ch <-chan *Held) {
	t.Helper()
	select {
	case <-ch:
		t.Fatal("got a slot it should wait for")
	case <-time.After(300 * time.Millisecond):
	}
}

func TestPerWorkspace(t *testing.T) {
	dir := t.TempDir()
	base := Config{Dir: dir, MaxConcurrency: 3, MaxPerWorkspace: 1, Interval: 10 * time.Millisecond}
	a := base
	a.RunID, a.Workspace, a.Enqueued = "A", "/w1", 1
	ha := got(t, acquire(t, a))
	w := &waits{}
	b := base
	b.RunID, b.Workspace, b.Enqueued, b.Waiting = "B", "/w1", 2, w.fn
	chb := acquire(t, b)
	none(t, chb)
	if s := w.all(); !strings.Contains(s, "A: 1 of this workspace's runs already running (max_runs_per_workspace=1)") {
		t.Errorf("waiting said %q", s)
	}
	c := base
	c.RunID, c.Workspace, c.Enqueued = "C", "/w2", 3
	got(t, acquire(t, c)).Release() // another workspace is not held up by B
	ha.Release()
	got(t, chb).Release()
}

func TestPolicy(t *testing.T) {
	for _, policy := range []string{FIFO, NewestFirst} {
		t.Run(policy, func(t *testing.T) {
			dir := t.TempDir()
			base := Config{Dir: dir, MaxConcurrency: 1, Policy: policy, Interval: 10 * time.Millisecond}
			h := base
			h.RunID, h.Workspace, h.Enqueued = "H", "/w", 1
			hh := got(t, acquire(t, h))
			wx := &waits{}
			x := base
			x.RunID, x.Workspace, x.Enqueued, x.Waiting = "X", "/x", 2, wx.fn
			chx := acquire(t, x)
			time.Sleep(100 * time.Millisecond) // X's ticket is in
			y := base
			y.RunID, y.Workspace, y.Enqueued = "Y", "/y", 3
			chy := acquire(t, y)
			none(t, chy)
			hh.Release()
			first, second := chx, chy
			if policy == NewestFirst {
				first, second = chy, chx
			}
			f := got(t, first)
			none(t, second)
			f.Release()
			got(t, second).Release()
			if s := wx.all(); !strings.Contains(s, "H: 1 loop already running on this machine (max_concurrency=1)") {
				t.Errorf("X waiting said %q", s)
			}
		})
	}
}

func TestBadConfig(t *testing.T) {
	for _, c := range []Config{{MaxConcurrency: 0}, {MaxConcurrency: 1, MaxPerWorkspace: -1}, {MaxConcurrency: 1, Policy: "lifo"}} {
		c.Dir = t.TempDir()
		if _, err := Acquire(context.Background(), c); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}
