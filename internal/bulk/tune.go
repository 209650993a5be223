package bulk

import (
	"os"
	"runtime"
	"sync"
	"sync/atomic"
)

// TuneProcess makes the process-wide settings the godu command wants and a
// library must not make on import: one P more than the runtime would
// have (see CPUs); with the cgo core, glibc's single malloc arena on
// Linux, and on macOS no download of dataless (cloud-evicted) files. Call
// it early; calls after the first change nothing more.
func TuneProcess() {
	tuneOnce.Do(func() {
		if os.Getenv("GOMAXPROCS") == "" { // the user's choice stands
			n := runtime.GOMAXPROCS(0)
			tunedCPUs.Store(int32(n))
			runtime.GOMAXPROCS(n + 1)
		}
	})
	tuneProcess()
}

var (
	tuneOnce sync.Once
	// tunedCPUs is the runtime's P count before TuneProcess added one
	// (0: not tuned).
	tunedCPUs atomic.Int32
)

// CPUs is the number of CPUs a walk may keep busy: the runtime's P count
// (GOMAXPROCS: the CPUs the process may use, its cgroup's limit included),
// as it was before TuneProcess added one.
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
