package bulk

import (
	"sync/atomic"
	"time"
)

// Waits sums what timed core calls (Reader.Sample) took and how long their
// threads slept in them: not running and not waiting for a CPU, but
// waiting on the system, on a disk most often. Several Readers may add
// to one at once.
type Waits struct {
	Took, Slept atomic.Int64 // nanoseconds
}

// CanSample reports whether Reader.Sample times calls here (Linux); where
// it does not, a sampled call is timed as taking nothing.
const CanSample = canSample

// Sample times the Reader's next core call (Read, Stat or Tree) into w.
// The thread's CPU time and its voluntary switches (sleeps; a preemption
// is not one) before and after the call tell the time it slept: a call
// that slept counts all its time off the CPU as slept, waits for a CPU
// in it included; one that only waited for a CPU, none.
func (r *Reader) Sample(w *Waits) { r.waits = w }

// timed runs f, the core call, timed into r.waits if Sample asked for
// it. Every core call goes through it; f does not escape, so the closure
// costs no allocation.
func (r *Reader) timed(f func()) {
	w := r.waits
	if w == nil {
		f()
		return
	}
	r.waits = nil
	tid0, t0, cpu0, sleeps0, ok := threadClock()
	f()
	if !ok {
		return
	}
	tid1, t1, cpu1, sleeps1, ok := threadClock()
	if !ok || tid1 != tid0 {
		return // ended on another thread: its CPU time is another clock
	}
	took := t1 - t0
	w.Took.Add(int64(took))
	if sleeps1 != sleeps0 {
		w.Slept.Add(int64(max(took-(cpu1-cpu0), 0)))
	}
}

// clockEpoch is what threadClock's wall time counts from.
var clockEpoch = time.Now()
