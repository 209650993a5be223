package bulk

import (
	"math/rand"
	"testing"
)

// TestIdents checks the set against a map over random adds and removals
// on few keys (long probe runs, wrap-around, removal moves).
func TestIdents(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	var s Idents
	ref := map[[2]uint64]int{}
	for step := 0; step < 200000; step++ {
		k := [2]uint64{uint64(rng.Intn(3)), uint64(rng.Intn(300))}
		if rng.Intn(2) == 0 {
			s.Add(k[0], k[1])
			ref[k]++
		} else if ref[k] > 0 || rng.Intn(4) == 0 {
			s.Remove(k[0], k[1])
			if ref[k] > 0 {
				ref[k]--
			}
		}
		q := [2]uint64{uint64(rng.Intn(3)), uint64(rng.Intn(300))}
		if s.Has(q[0], q[1]) != (ref[q] > 0) {
			t.Fatalf("step %d: Has(%v) = %v, want %v", step, q, !(ref[q] > 0), ref[q] > 0)
		}
	}
	n := 0
	for _, c := range ref {
		n += c
	}
	if s.Len() != n {
		t.Fatalf("Len %d, want %d", s.Len(), n)
	}
	s.Clear()
	if s.Len() != 0 || s.Has(0, 1) {
		t.Fatal("Clear left keys")
	}
}

// keepSched keeps TuneProcess, for the rest of t, from switching the
// test binary's threads to SCHED_BATCH, which would outlast the test.
func keepSched(t *testing.T) {
	t.Helper()
	saved := setSched
	setSched = func() {}
	t.Cleanup(func() { setSched = saved })
}
