//go:build unix

package walk

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"
)

// TestShareAndSpin compares walks that share a directory's subdirectories
// with a free worker and spin for work (share.go) with walks that do
// neither: same totals at every reported node, same counts, same stream.
// Whether a slot is free as a directory is visited depends on timing, so
// each walk also runs as if one always were (shareAlways), where every
// directory of two or more subdirectories shares them; and spinning
// workers wait for an hour, so that a walk ends only if they stop when
// no worker runs that could push more. Each walk has a minute.
func TestShareAndSpin(t *testing.T) {
	defer func(on bool, d time.Duration) { shareIdle, shareAlways, spinFor = on, false, d }(shareIdle, spinFor)
	root := randomTree(t, 11)
	within := func(name string, f func()) { // (a hang fails the run, with every goroutine's stack)
		timer := time.AfterFunc(time.Minute, func() { panic(name + ": the walk did not end in a minute") })
		defer timer.Stop()
		f()
	}
	for _, opts := range []Options{
		{MaxDepth: 0}, {MaxDepth: -1}, {MaxDepth: -1, Jobs: 16}, {MaxDepth: 2, Jobs: 3},
		{MaxDepth: -1, ListFiles: true, Jobs: 2}, {MaxDepth: -1, CountLinks: true, Jobs: 2},
		{MaxDepth: 0, Jobs: 1},
	} {
		shareIdle, shareAlways, spinFor = false, false, 0
		base := walkBaseline(t, opts, root)
		for _, always := range []bool{false, true} {
			shareIdle, shareAlways, spinFor = true, always, time.Hour
			shares := sharesOut.Load()
			name := fmt.Sprintf("%+v always free %v", opts, always)
			within(name, func() { base.same(t, name, opts, root) })
			// (Listing files, a walk reads every directory itself.)
			if always && subtreeWalk && !opts.ListFiles && sharesOut.Load() == shares {
				t.Errorf("%s: no directory shared its subdirectories", name)
			}
		}
	}
}

// TestSpinNeverOverJobs plays, step by step, a schedule in which a
// spinning worker gives up while every slot is taken. Counted again
// regardless, it made live.Running one over live.Jobs, and a working
// worker that had just pushed a directory then left (leave), counting on
// the others, who were stopping, their new workers refused by the
// group's limit: the directory stayed on the stack and the walk ended
// without it (found by an outside review). The spinning worker must stop
// uncounted instead, and the pusher go on with what it pushed.
func TestSpinNeverOverJobs(t *testing.T) {
	defer func(d time.Duration) { spinFor, stopHook, spinEndHook = d, nil, nil }(spinFor)
	spinFor = time.Hour
	g := &errgroup.Group{}
	g.SetLimit(2)
	sc := &scan{w: New(Options{Jobs: 2}), ctx: context.Background(), g: g}
	sc.live.Jobs.Store(2)
	sc.live.Running.Add(1) // M, this goroutine: the caller's worker

	g2Stopping, g2Go := make(chan struct{}), make(chan struct{})
	var stops atomic.Int32
	stopHook = func() { // G2's stop (and G1's, were it counted again)
		if stops.Add(1) == 1 {
			close(g2Stopping)
		}
		<-g2Go
	}
	g1Gives, g1Go, g1Done := make(chan struct{}), make(chan struct{}), make(chan struct{})
	spinEndHook = func() { close(g1Gives); <-g1Go }

	// G1 finds the stack empty and spins.
	if !sc.tryGo(func() error {
		if sc.pop() != nil {
			t.Error("G1 popped")
		}
		res := sc.spin(sc.w.getWorker())
		close(g1Done)
		if res == spinOut {
			return errLeft
		}
		return nil
	}) {
		t.Fatal("G1 not started")
	}
	for sc.spinners.Load() == 0 {
		time.Sleep(time.Microsecond)
	}
	// G2 finds the stack empty, may not spin (G1 does), and stops: held
	// in stopped, still counted.
	if !sc.tryGo(func() error {
		if sc.pop() != nil {
			t.Error("G2 popped")
		}
		if sc.spin(sc.w.getWorker()) != spinNone {
			t.Error("G2 spun")
		}
		return nil
	}) {
		t.Fatal("G2 not started")
	}
	<-g2Stopping
	<-g1Gives // M and G2 run: every slot taken
	close(g1Go)
	<-g1Done
	if r := sc.live.Running.Load(); r > sc.live.Jobs.Load() {
		t.Errorf("Running %d after a spin gave up, over Jobs %d", r, sc.live.Jobs.Load())
	}
	// M pushes a directory its subtree walk left, starts no worker for it
	// (one directory: M goes on with it), and goes on.
	d := &dir{name: "d"}
	sc.push([]*dir{d})
	if sc.leave() {
		t.Fatal("M left, counting on workers that were stopping")
	}
	if got := sc.pop(); got != d {
		t.Fatalf("M popped %v, not what it pushed", got)
	}
	close(g2Go)
	g.Wait()
	if r := sc.live.Running.Load(); r != 1 {
		t.Errorf("Running %d once G1 and G2 ended, want 1 (M)", r)
	}
}
