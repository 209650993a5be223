package walk

import (
	"sync/atomic"
	"time"

	"github.com/godu-sh/godu/internal/bulk"
)

// A worker that finds nothing to do makes another's work available in
// two ways, both for a tree of many small directories, where a subtree
// walk keeps to one worker what the other could read (random trees of
// a few thousand directories, most of them empty: 1.04 CPUs busy of 2).
//
// Sharing: a directory visited while a slot of the walk is free and
// nothing waits on the shared stack does not give its subdirectories to
// a subtree walk when it has two or more: they go on the stack, where
// the free worker takes one (sharesOut). With one, a subtree walk goes
// on (a chain: nothing to share, and the walk is a core call per
// directory cheaper).
//
// Spinning: a worker that finds the stack empty waits for it, awake,
// for spinFor before it stops (spin), out of live.Running meanwhile, so
// that a subtree walk sees it free and ends early (godu_idle). What that
// walk leaves is then taken as soon as it is pushed. A worker started
// for it instead first waits for the runtime to give its goroutine a
// thread: measured in the runtime's trace and perf sched, a goroutine
// started by a worker that then went on into a long core call waited
// up to a millisecond for one. (Measured: README, Sharing with a free
// worker.) Where a subtree walk open to helpers runs, the waiting worker
// joins it instead (bulk.Reader.Help: live.Spinning tells the walk not to
// end for it), while a slot is free; each directory it reads there starts
// its spinFor again. (README, Helpers inside a subtree walk.)
var (
	shareIdle   = true // sharing on (tests turn it off)
	shareAlways bool   // as if a slot were always free (tests)
	sharesOut   atomic.Int64
	spinFor     = 200 * time.Microsecond
)

// share reports whether d, just read whole into b, passes its
// subdirectories on instead of to a subtree walk (see sharing above).
func (sc *scan) share(b *bulk.Batch) bool {
	if !shareIdle {
		return false
	}
	if !shareAlways && !sc.live.Idle() {
		return false
	}
	n := 0
	for i := range b.Records {
		if b.Records[i].Type == bulk.Directory {
			if n++; n == 2 {
				sharesOut.Add(1)
				return true
			}
		}
	}
	return false
}

// spinResult is how a spin ended.
type spinResult int

const (
	spinNone spinResult = iota // no wait, or it ended with nothing: counted, to stop (stopped)
	spinWork                   // counted again, to pop what was pushed
	spinOut                    // every slot taken: stops uncounted, as a worker that left
)

// spin is the wait of a worker that found the stack empty (see spinning
// above). Only one worker waits so at a time, and none where the walk
// has one slot. It ends with spinWork when something is pushed and a
// slot is free; otherwise when no worker runs (none could push more),
// when every slot is taken (the CPUs are busy: a spinning worker would
// take one from them) or after spinFor: counted again (spinNone) only
// into a free slot, else spinOut.
//
// live.Running never passes live.Jobs here, not even for a moment: a
// worker that saw it over would leave (leave), counting on the others,
// and a directory it pushed last could then wait on the stack with no
// worker to take it (the others stopping, their new workers refused by
// the group's limit while they still hold its slots).
func (sc *scan) spin(wk *worker) spinResult {
	if spinFor <= 0 || sc.live.Jobs.Load() < 2 || !sc.spinners.CompareAndSwap(0, 1) {
		return spinNone
	}
	sc.live.Spinning.Store(1)
	sc.live.Running.Add(-1)
	start := time.Now()
	for sc.ctx.Err() == nil {
		if sc.live.Stacked.Load() > 0 && sc.claimSlot() {
			sc.live.Spinning.Store(0)
			sc.spinners.Store(0)
			return spinWork
		}
		if r := sc.live.Running.Load(); r == 0 || r >= sc.live.Jobs.Load() || time.Since(start) >= spinFor {
			break
		}
		if wk.rd.Help(&sc.live) > 0 { // a walk's directories read
			start = time.Now()
			continue
		}
		for range 64 { // between clock reads
			if sc.live.Stacked.Load() > 0 {
				break
			}
		}
	}
	if spinEndHook != nil {
		spinEndHook()
	}
	sc.live.Spinning.Store(0)
	sc.spinners.Store(0)
	if sc.claimSlot() {
		return spinNone
	}
	return spinOut
}

// claimSlot counts one more worker in live.Running if that leaves it at
// most live.Jobs, and reports whether it did.
func (sc *scan) claimSlot() bool {
	for {
		r := sc.live.Running.Load()
		if r >= sc.live.Jobs.Load() {
			return false
		}
		if sc.live.Running.CompareAndSwap(r, r+1) {
			return true
		}
	}
}

// spinEndHook, when set (by tests), is called as a spin ends without
// work, while it is still the one spinning.
var spinEndHook func()

// toStart is how many workers to start for n directories just pushed:
// one fewer for a worker spinning, which takes one of them.
func (sc *scan) toStart(n int) int {
	return n - int(sc.spinners.Load())
}
