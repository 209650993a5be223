package bulk

import (
	"os"
	"runtime"
	"sync"
	"sync/atomic"
)

// TuneProcess makes the process-wide settings the godu command wants and a
// library must not make on import: one P more than the runtime would
// have, added once a walk runs two workers or more (SpareP; see CPUs);
// on Linux, SCHED_BATCH for its threads (schedBatch); with the cgo core,
// glibc's single malloc arena on Linux, and on macOS no download of
// dataless (cloud-evicted) files. Call it early; calls after the first
// change nothing more.
func TuneProcess() {
	tuneOnce.Do(func() {
		if os.Getenv("GOMAXPROCS") == "" { // the user's choice stands
			tunedCPUs.Store(int32(runtime.GOMAXPROCS(0)))
		}
		setSched()
	})
	tuneProcess()
}

// SpareP adds the P TuneProcess set aside, the first time it is called
// after TuneProcess (else it does nothing), and reports whether it did.
// A walk calls it once it has run a few milliseconds with two workers or
// more: a walk that never runs two at once (an empty directory, a small
// one), or is over by then, never pays for a P it has little use for.
// Setting GOMAXPROCS stops the world, and with a P more than the CPUs
// the runtime's idle threads spin on them: at start-up, before anything
// was read, the two cost godu -s on an empty directory 6 % of its time
// and, in one perf stat run, twice its CPU time (5.0 ms against 2.6).
func SpareP() bool {
	if n := tunedCPUs.Load(); n > 0 && !spared.Load() && spared.CompareAndSwap(false, true) {
		runtime.GOMAXPROCS(int(n) + 1)
		return true
	}
	return false
}

var (
	// setSched is schedBatch; the package's tests, which tune their own
	// process, leave the policy alone.
	setSched = schedBatch
	tuneOnce sync.Once
	// tunedCPUs is the runtime's P count when TuneProcess ran (0: not
	// tuned); spared: SpareP added one to it.
	tunedCPUs atomic.Int32
	spared    atomic.Bool
)

// CPUs is the number of CPUs a walk may keep busy: the runtime's P count
// (GOMAXPROCS: the CPUs the process may use, its cgroup's limit included),
// as it was before SpareP added one.
//
// A worker spends most of its time in calls to the core, each holding a
// P in a system call. While no P is idle the runtime's monitor takes
// such Ps back every 20 µs, from calls that last longer, hands them on,
// and the call's end waits for one: on 2 CPUs with 2 Ps, real (4,033
// directories) cost 762 context switches and 343 monitor wake-ups against
// the floor's 47 context switches. With one P more than the workers that
// run at once, a P stays idle, and the monitor leaves calls alone.
// (Setting GOMAXPROCS ends the runtime's own updates of it to a changed
// CPU limit of the container, which a command that runs for seconds does
// not miss.)
func CPUs() int {
	if n := tunedCPUs.Load(); n > 0 {
		return int(n)
	}
	return runtime.GOMAXPROCS(0)
}
