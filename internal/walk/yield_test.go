//go:build linux && !godu_xnu && !godu_portable

package walk

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"syscall"
	"testing"
	"time"
)

// TestLoneWorkerYields: on the Linux readers, one worker walking a directory of 40,000 files
// (about 80 calls to the core, some 50 ms) reschedules itself, so that the
// runtime does not take its P at every call and wake its monitor thread
// after: the process's voluntary context switches fall to well under half of what
// the same walk makes without yield.
func TestLoneWorkerYields(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("needs two Ps: with one, no P is idle and the worker never yields")
	}
	root := t.TempDir()
	for i := range 40000 {
		f, err := os.Create(filepath.Join(root, fmt.Sprintf("f%05d", i)))
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	// No collection during the walks: one preempts the worker, which
	// starts its 10 ms afresh as a yield would.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	var wall, cpu time.Duration
	switches := func() int64 {
		var n []int64
		for range 3 {
			runtime.GC()
			var a, b syscall.Rusage
			syscall.Getrusage(syscall.RUSAGE_SELF, &a)
			start := time.Now()
			if _, err := New(Options{Jobs: 1}).Walk(context.Background(), root); err != nil {
				t.Fatal(err)
			}
			wall += time.Since(start)
			syscall.Getrusage(syscall.RUSAGE_SELF, &b)
			cpu += time.Duration(b.Utime.Nano() + b.Stime.Nano() - a.Utime.Nano() - a.Stime.Nano())
			n = append(n, b.Nvcsw-a.Nvcsw)
		}
		slices.Sort(n)
		return n[1]
	}
	with := switches()
	defer func(d time.Duration) { yieldEvery = d }(yieldEvery)
	yieldEvery = time.Hour
	without := switches()
	if share := float64(cpu) / float64(wall); share < 0.7 {
		// Other processes had the CPUs (make test runs this alone too):
		// the walk took longer, and so made more yields, by the load.
		t.Skipf("the walk had %.0f %% of a CPU: the machine is busy", 100*share)
	}
	t.Logf("voluntary context switches of one walk (median of 3): %d with yield, %d without", with, without)
	if 2*with >= without {
		t.Errorf("with yield the walk made %d context switches, without %d: want fewer than half", with, without)
	}
}
