//go:build unix

package walk

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/godu-sh/godu/internal/bulk"
)

// TestAllowanceChanges: the allowance changed at random at every
// directory, workers started for a rise and leaving on a fall, changes
// no figure: every reported node's totals and the walk's counts are
// those of a walk by one worker, for any options, and no descriptor is
// left open.
func TestAllowanceChanges(t *testing.T) {
	if !bulk.CanSample {
		t.Skip("no timed calls here: the allowance does not change")
	}
	defer func(e, s time.Duration) { paceEvery, sampleEvery, paceWant = e, s, nil }(paceEvery, sampleEvery)
	paceEvery, sampleEvery = 0, time.Hour
	var mu sync.Mutex
	rng := rand.New(rand.NewSource(1))
	paceWant = func(cpus, jobs int32) int32 {
		mu.Lock()
		defer mu.Unlock()
		return 1 + rng.Int31n(jobs)
	}
	jobs := bulk.CPUs() + 7
	left0 := left.Load()
	for seed := int64(1); seed <= 3; seed++ {
		path := randomTree(t, seed)
		for _, opts := range []Options{
			{MaxDepth: 0}, {MaxDepth: 1, Time: bulk.MTime}, {MaxDepth: -1},
			{MaxDepth: 2, CountLinks: true},
		} {
			opts.Jobs = 1
			want, wantStats := report(t, opts, path)
			opts.Jobs = jobs
			for try := 0; try < 3; try++ {
				got, stats := report(t, opts, path)
				sameReport(t, fmt.Sprintf("seed %d %+v try %d", seed, opts, try), got, want, stats, wantStats)
			}
		}
		// du -a's stream, in du's order.
		stream := func(jobs int) []string {
			var lines []string
			w := New(Options{MaxDepth: -1, ListFiles: true, Jobs: jobs, Stream: func(p string, n *Node) {
				lines = append(lines, fmt.Sprint(p, " ", n.Totals))
			}})
			if _, err := w.Walk(context.Background(), path); err != nil {
				t.Fatal(err)
			}
			return lines
		}
		want := stream(1)
		for try := 0; try < 3; try++ {
			if got := stream(jobs); !slices.Equal(got, want) {
				t.Fatalf("seed %d, -a stream try %d: %d lines, want %d, or in another order", seed, try, len(got), len(want))
			}
		}
	}
	if left.Load() == left0 {
		t.Errorf("no worker ever left: the fall of the allowance went untested")
	}
}

// TestSparePOnSecondWorker: a walk asks for the spare P (bulk.SpareP)
// only once it has run spareAfter with two workers or more: never for an
// empty directory or at one job, nor for a walk over by then, and for a
// tree that gives a second worker work once it is due; the yield's count
// of Ps grows by one when it is added.
func TestSparePOnSecondWorker(t *testing.T) {
	defer func(f func() bool, after time.Duration) { spareP, spareAfter = f, after }(spareP, spareAfter)
	var calls, added atomic.Int32
	spareP = func() bool {
		calls.Add(1)
		return added.CompareAndSwap(0, 1)
	}
	empty := t.TempDir()
	tree := randomTree(t, 3)
	for _, c := range []struct {
		path    string
		jobs    int
		after   time.Duration
		asks    bool
		comment string
	}{
		{empty, 8, 0, false, "an empty directory"},
		{tree, 1, 0, false, "one job"},
		{tree, 8, time.Hour, false, "a tree walked sooner than spareAfter"},
		{tree, 8, 0, true, "a tree, 8 jobs"},
	} {
		calls.Store(0)
		added.Store(0)
		spareAfter = c.after
		var mu sync.Mutex
		var procs0, procs int32
		visitHook = func(sc *scan, d *dir) {
			mu.Lock()
			defer mu.Unlock()
			if d.parent == nil {
				procs0 = sc.procs.Load()
			}
			procs = max(procs, sc.procs.Load())
		}
		report(t, Options{MaxDepth: 0, Jobs: c.jobs}, c.path)
		visitHook = nil
		// With one CPU (GOMAXPROCS=1) the walk runs one worker at once,
		// and never asks.
		asks := c.asks && bulk.CPUs() > 1
		if got := calls.Load() > 0; got != asks {
			t.Errorf("%s: %d calls to SpareP, want some: %v", c.comment, calls.Load(), asks)
		}
		if asks && procs != procs0+1 {
			t.Errorf("%s: the walk's Ps went from %d to %d, want one more", c.comment, procs0, procs)
		}
	}
}
