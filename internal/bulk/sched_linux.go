package bulk

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// schedBatch moves every thread of the process from the system's default
// policy (SCHED_OTHER) to SCHED_BATCH, its variant for work no one waits
// on from moment to moment: the same share of the CPUs, the same nice
// value, but a thread that wakes does not preempt the one running. The
// threads the runtime starts later inherit it from the thread that starts
// them. A process started under another policy (chrt) keeps it.
//
// A walk's workers are threads in long calls into the core; the runtime's
// monitor (sysmon) wakes every 20 µs to 10 ms beside them, and its idle
// threads wake to look for work whenever a goroutine is made ready. Under
// SCHED_OTHER each of those wake-ups took a worker's CPU from it: on a
// random tree of 4,841 entries in small directories, 161 context switches
// in 17 ms, the monitor running every 100 µs on the CPU of a worker it
// then preempted (perf sched). Under SCHED_BATCH a thread that wakes runs
// on an idle CPU, or waits for the running one's slice to end: the walk
// 4–15 % faster on most trees, somewhat slower beside CPU-bound
// processes (README, Threads that wake do not preempt the walk).
//
// The command's C constructor makes the switch before the runtime starts
// a thread (cmd/godu/start_cgo.go): this finds it made. Here, for a build
// without cgo and a program that calls godu.TuneProcess, each thread is
// switched, under the same condition: the machine not busy (machineBusy).
func schedBatch() {
	policy, _, errno := unix.RawSyscall(unix.SYS_SCHED_GETSCHEDULER, 0, 0, 0)
	if errno != 0 || policy != unix.SCHED_NORMAL || machineBusy() {
		return
	}
	// A thread not yet switched may start another while the threads are
	// listed: the list is read again until it holds no thread not seen.
	var param [4]int32 // struct sched_param: its priority, 0 for SCHED_BATCH
	seen := map[string]bool{}
	for more := true; more; {
		ents, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return // no /proc, or no descriptor to read it with
		}
		more = false
		for _, e := range ents {
			if seen[e.Name()] {
				continue
			}
			seen[e.Name()], more = true, true
			if tid, err := strconv.Atoi(e.Name()); err == nil {
				unix.RawSyscall(unix.SYS_SCHED_SETSCHEDULER, uintptr(tid), unix.SCHED_BATCH, uintptr(unsafe.Pointer(&param[0])))
			}
		}
	}
}

// machineBusy reports whether the load average of the last minute is at
// least the CPUs the process may use: then the CPUs are busy with other
// programs, and a thread that wakes and does not preempt waits for their
// slices (a tree of 1,000 entries beside two CPU-bound processes: 1.23×
// slower under SCHED_BATCH). GODU_LOADAVG stands for the load average in
// tests.
func machineBusy() bool {
	load, ok := os.LookupEnv("GODU_LOADAVG")
	if !ok {
		b, err := os.ReadFile("/proc/loadavg")
		if err != nil {
			return true // unknown: as before
		}
		load = string(b)
	}
	f, _, _ := strings.Cut(strings.TrimSpace(load), " ")
	v, err := strconv.ParseFloat(f, 64)
	return err != nil || v >= float64(runtime.NumCPU())
}
