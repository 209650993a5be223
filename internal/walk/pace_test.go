package walk

import (
	"context"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/godu-sh/godu/internal/bulk"
)

// TestPaceDecides: the allowance follows the share of the timed time
// slept: at once up to CPUs / (1 - share), at most Jobs, and one a
// decision down to the CPUs while no more are wanted.
func TestPaceDecides(t *testing.T) {
	sc := &scan{w: &Walker{opts: Options{Jobs: 8}}}
	sc.pace.cpus, sc.pace.on = 2, true
	sc.live.Jobs.Store(2)
	wk := &worker{rd: bulk.NewReader()}
	now := time.Second
	decide := func(slept float64) int32 {
		now += paceEvery
		wk.sampled = now // no call to time
		sc.pace.waits.Took.Store(int64(time.Millisecond))
		sc.pace.waits.Slept.Store(int64(slept * float64(time.Millisecond)))
		sc.paced(wk, now)
		return sc.live.Jobs.Load()
	}
	for i, c := range []struct {
		slept float64
		want  int32
	}{
		{0, 2}, {0.1, 2}, {0.5, 4}, {0.5, 4}, {0.3, 4}, {0.9, 8}, {1, 8},
		{0, 7}, {0, 6}, {0.3, 6}, {0.1, 5}, {0, 4}, {0, 3}, {0, 2}, {0, 2}, {0.75, 8},
	} {
		if got := decide(c.slept); got != c.want {
			t.Fatalf("decision %d, %.0f %% slept: %d workers allowed, want %d", i, 100*c.slept, got, c.want)
		}
	}
	// Too little timed: no decision.
	now += paceEvery
	sc.pace.waits.Took.Store(int64(paceMinTimed) / 2)
	sc.pace.waits.Slept.Store(0)
	if sc.paced(wk, now); sc.live.Jobs.Load() != 8 {
		t.Errorf("decided on %v timed", paceMinTimed/2)
	}
	// A worker times a call every sampleEvery.
	wk.sampled = now - sampleEvery
	sc.paced(wk, now)
	if wk.sampled != now {
		t.Errorf("no call timed after %v", sampleEvery)
	}
}

// TestLeaveKeepsAWorker: a worker that stops, having found the stack
// empty, still counts until it is out of live.Running; a worker that
// pushed a directory meanwhile, started none for it (no slot) and left
// (the allowance fell) counted on it. The stopping worker starts one for
// what is stacked: the walk never ends with a directory on its stack.
func TestLeaveKeepsAWorker(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the stacked directory is visited as cut short: no system call
	sc := &scan{w: New(Options{Jobs: 4}), ctx: ctx, g: &errgroup.Group{}}
	sc.live.Jobs.Store(1)    // fallen after the stopping worker's last leave check
	sc.live.Running.Store(2) // this worker, and one stopping
	sc.push([]*dir{{name: "x", pending: 1}})
	if sc.tryGo(sc.workFromStack) {
		t.Fatal("a slot was free")
	}
	if !sc.work(sc.w.getWorker()) {
		t.Fatal("the worker over the allowance did not leave")
	}
	sc.stopped() // the stopping worker
	sc.g.Wait()
	if n := sc.live.Stacked.Load(); n != 0 {
		t.Errorf("the walk ended with %d directories stacked", n)
	}
	if r := sc.live.Running.Load(); r != 0 {
		t.Errorf("Running %d after every worker ended", r)
	}
}

// TestVisitOnLeaves: a worker started for a directory handed over open
// (visitOn) that leaves is counted out of live.Running once.
func TestVisitOnLeaves(t *testing.T) {
	sc := &scan{w: New(Options{Jobs: 4}), ctx: context.Background(), g: &errgroup.Group{}}
	sc.live.Jobs.Store(2)
	sc.live.Running.Store(1) // the caller's goroutine, working
	sc.w.workMu.Lock()       // the started worker waits in getWorker
	if !sc.visitOn(nil, -1) {
		t.Fatal("no slot")
	}
	sc.live.Jobs.Store(1) // the allowance falls: the started worker leaves
	sc.w.workMu.Unlock()
	sc.g.Wait()
	if r := sc.live.Running.Load(); r != 1 {
		t.Errorf("Running %d with the caller still working, want 1", r)
	}
}
