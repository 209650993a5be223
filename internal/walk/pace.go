package walk

import (
	"errors"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/godu-sh/godu/internal/bulk"
)

// A walk allows at first as many workers at once as there are CPUs to
// keep busy (bulk.CPUs), and up to Options.Jobs while they wait on the
// disk. Where the tree is in memory, workers beyond the CPUs only cost:
// thread switches, and caches shared by more buffers (real, 2 CPUs: 6
// workers 1.13× the floor, 2 workers 1.05×). Where it is not, workers
// waiting on reads leave CPUs idle that more of them fill (deep, caches
// dropped: 2 workers 1.1 s, 6 workers 0.75 s).
//
// The walk measures which it is. Each worker times one core call every
// sampleEvery (bulk.Reader.Sample): how long it took and how long its
// thread slept in it. Every paceEvery, with enough timed, the share of
// the time slept, s, sets the workers that keep the CPUs busy, CPUs /
// (1 - s): the allowance rises to it at once. It falls, by one a
// decision, only where that is the CPUs alone (s under a fifth with 2
// CPUs): the workers a disk keeps waiting are many one moment and fewer
// the next, and a worker too many costs little there (deep, caches
// dropped: falling whenever fewer were wanted, 4 to 6 workers allowed,
// was 5 % slower than 6 throughout). A call that waited only for a CPU
// did not sleep: more workers than CPUs on a tree in memory wait for
// one, and are allowed fewer. (A call that slept counts all its time off
// the CPU as sleep, waits for a CPU in it included: where both happen,
// the allowance errs high, which costs little.)
type pacer struct {
	mu    sync.Mutex   // held by the worker that decides
	due   atomic.Int64 // when the next decision is due (since epoch)
	on    bool         // the allowance may change
	cpus  int32        // the allowance's least
	waits bulk.Waits   // since the last decision
}

// sampleEvery is the time between a worker's timed calls, paceEvery
// between two decisions, paceMinTimed the least timed for one: variables
// for tests.
var (
	sampleEvery  = time.Millisecond
	paceEvery    = 2 * time.Millisecond
	paceMinTimed = 500 * time.Microsecond
)

// startPace sets the allowance at the walk's start.
func (sc *scan) startPace() {
	p := &sc.pace
	p.cpus = int32(min(max(bulk.CPUs(), 1), sc.w.opts.Jobs))
	p.on = bulk.CanSample && p.cpus < int32(sc.w.opts.Jobs)
	if !p.on {
		p.cpus = int32(sc.w.opts.Jobs) // all of them, where calls cannot be timed
	}
	sc.live.Jobs.Store(p.cpus)
	sc.started = time.Since(epoch)
	p.due.Store(int64(sc.started + paceEvery))
}

// paced times wk's next core call if one is due, and decides if a
// decision is due (now: since epoch).
func (sc *scan) paced(wk *worker, now time.Duration) {
	p := &sc.pace
	if !p.on || sc.alone.Load() {
		return
	}
	if now-wk.sampled >= sampleEvery {
		wk.sampled = now
		wk.rd.Sample(&p.waits)
	}
	if int64(now) < p.due.Load() || !p.mu.TryLock() {
		return
	}
	defer p.mu.Unlock()
	if sc.alone.Load() {
		return // (starved meanwhile)
	}
	if int64(now) < p.due.Load() || p.waits.Took.Load() < int64(paceMinTimed) && paceWant == nil {
		return // decided meanwhile, or too little timed yet
	}
	p.due.Store(int64(now + paceEvery))
	var want int32
	if paceWant != nil {
		want = paceWant(p.cpus, int32(sc.w.opts.Jobs))
	} else {
		took, slept := p.waits.Took.Swap(0), p.waits.Slept.Swap(0)
		if took <= 0 {
			return
		}
		awake := max(1-float64(slept)/float64(took), 0.05)
		want = int32(min(math.Round(float64(p.cpus)/awake), float64(sc.w.opts.Jobs)))
	}
	allowed := sc.live.Jobs.Load()
	switch {
	case want > allowed:
		sc.live.Jobs.Store(want)
		for i := allowed; i < want && sc.live.Stacked.Load() > 0 && sc.tryGo(sc.workFromStack); i++ {
		}
	case want == p.cpus && allowed > p.cpus:
		sc.live.Jobs.Store(allowed - 1)
	}
}

// paceWant, in tests, chooses the workers wanted instead of the timed
// calls.
var paceWant func(cpus, jobs int32) int32

// leave takes the calling worker out of live.Running if more work than
// are allowed, and reports whether it did: the worker then leaves. The
// count goes down by one at a time, each for one worker, so that no more
// leave than the surplus.
func (sc *scan) leave() bool {
	for {
		r := sc.live.Running.Load()
		if r <= sc.live.Jobs.Load() {
			return false
		}
		if sc.live.Running.CompareAndSwap(r, r-1) {
			left.Add(1)
			return true
		}
	}
}

// errLeft is what a worker's goroutine returns once leave took it out
// of live.Running (tryGo): never an error of the walk's.
var errLeft = errors.New("left")

// left counts the workers that left (for tests).
var left atomic.Int64
