package walk

import (
	"runtime"
	"time"

	"github.com/godu-sh/godu/internal/bulk"
)

// The Go scheduler takes a goroutine that has not been rescheduled for
// 10 ms to be running too long (sysmon's forcePreemptNS). A worker is
// mostly in calls to the core, where it cannot be preempted: from then
// on the runtime takes its P away during every call, even with a P
// idle, and with every P idle its monitor thread sleeps until the call
// returns and wakes it, a futex wake and three thread switches per call
// (on one worker, a directory of 200,000 files made 461 futex calls and
// 855 context switches in 0.35 s; the floor, 16 and 22). A worker that
// runs while a P is idle reschedules itself every yieldEvery, which
// starts the 10 ms afresh. When every P is busy, the runtime takes Ps
// from calls for other goroutines anyway, and a yield would only hand
// the worker's P to one of them: none then.
var yieldEvery = 4 * time.Millisecond // a variable for tests

// epoch is what workers' yield times count from: one clock for every
// walk, since a worker is reused by the next.
var epoch = time.Now()

// spareAfter is how long a walk runs before it adds the P the command set
// aside (bulk.SpareP), once two workers or more run: a walk over by then
// never pays for stopping the world to add it (a directory of 1,000
// files: 3 % of godu's time, paired), and without it the runtime's
// monitor takes Ps from the workers' calls (real: 11 % slower; from 4
// ms on, 5 % faster than with the P added as the second worker starts,
// within noise). spareP is bulk.SpareP. Variables for tests.
var (
	spareAfter = 4 * time.Millisecond
	spareP     = bulk.SpareP
)

// yield reschedules wk's goroutine if yieldEvery has passed since it
// last did and fewer workers run than there are Ps. It is where the walk
// keeps its pace too (paced), and adds the spare P: a worker calls it
// before each directory and each batch of a huge one.
func (sc *scan) yield(wk *worker) {
	now := time.Since(epoch)
	sc.paced(wk, now)
	if now-sc.started >= spareAfter && sc.live.Running.Load() > 1 && spareP() {
		sc.procs.Add(1)
	}
	if now-wk.yielded < yieldEvery {
		return
	}
	wk.yielded = now
	if sc.live.Running.Load() < sc.procs.Load() {
		runtime.Gosched()
	}
}
