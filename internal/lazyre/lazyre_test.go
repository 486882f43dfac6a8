package lazyre

import (
	"sync"
	"testing"
)

func TestLazy(t *testing.T) {
	re := New(`^a(\d+)$`)
	if re.re != nil {
		t.Fatal("compiled before use")
	}
	var wg sync.WaitGroup
	for range 8 { // first uses at once compile once
		wg.Go(func() {
			if m := re.FindStringSubmatch("a42"); len(m) != 2 || m[1] != "42" {
				t.Errorf("FindStringSubmatch = %q", m)
			}
		})
	}
	wg.Wait()
	if !re.MatchString("a1") || re.MatchString("b1") || re.String() != `^a(\d+)$` {
		t.Error("MatchString or String wrong")
	}
	defer func() {
		if recover() == nil {
			t.Error("an invalid expression did not panic at first use")
		}
	}()
	New(`(`).MatchString("x")
}
