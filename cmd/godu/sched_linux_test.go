package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// TestSchedBatch: started under the default policy on a machine whose
// load average is below its CPUs, every thread of godu runs under
// SCHED_BATCH, its nice value kept (the command's C constructor, or
// bulk.TuneProcess); on a busy machine, or started under another policy
// (here SCHED_IDLE, which needs no privilege), it keeps its policy. Read
// from /proc while godu, its first operand walked, waits for the next
// name of --files0-from. GODU_LOADAVG stands for the load average.
func TestSchedBatch(t *testing.T) {
	root := t.TempDir()
	for i := range 50 {
		os.MkdirAll(filepath.Join(root, "d", strconv.Itoa(i), "e"), 0o755)
	}
	const other, batch, idle = 0, 3, 5
	// godu inherits the policy and nice value of the thread that starts
	// it: the default policy (underDefaultPolicy).
	underDefaultPolicy(t)
	prio, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0)
	if err != nil {
		t.Fatal(err)
	}
	nice := 20 - prio // the raw getpriority system call returns 20 - nice
	for _, c := range []struct {
		load   string
		argv   []string
		policy int
		nice   string
	}{
		{"0.00 0.01 0.05 1/100 7", []string{godu}, batch, strconv.Itoa(nice)},
		{fmt.Sprintf("%.2f", float64(runtime.NumCPU())-0.01), []string{"nice", "-n", "3", godu}, batch, strconv.Itoa(min(nice+3, 19))},
		{"0.00", []string{"chrt", "-i", "0", godu}, idle, strconv.Itoa(nice)},
		{"4096.00 2.00 2.00 3/100 7", []string{godu}, other, strconv.Itoa(nice)},
	} {
		if _, err := exec.LookPath(c.argv[0]); err != nil && c.argv[0] != godu {
			t.Logf("%s: %v", c.argv[0], err)
			continue
		}
		cmd := exec.Command(c.argv[0], append(c.argv[1:], "-s", "--files0-from=-")...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GODU_LOADAVG="+c.load)
		in, out := startPiped(t, cmd)
		in.Write([]byte("d\x00"))
		line, err := out.ReadString('\n')
		if err != nil || !strings.HasSuffix(line, "\td\n") {
			t.Fatalf("%q: %q, %v", c.argv, line, err)
		}
		tasks, err := os.ReadDir("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/task")
		if err != nil {
			t.Fatal(err)
		}
		for _, task := range tasks {
			b, err := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/task/" + task.Name() + "/stat")
			if err != nil {
				continue // ended meanwhile
			}
			// Fields after the name: state is field 3, nice 19, policy 41.
			f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
			if policy, _ := strconv.Atoi(f[41-3]); policy != c.policy || f[19-3] != c.nice {
				t.Errorf("%q, load %s: thread %s has policy %d and nice %s, want %d and %s", c.argv, c.load, task.Name(), policy, f[19-3], c.policy, c.nice)
			}
		}
		if len(tasks) < 2 {
			t.Errorf("%q: %d threads", c.argv, len(tasks))
		}
		in.Close()
		if !waitAtMost(cmd, 20*time.Second) {
			t.Errorf("%q: godu did not end with its input", c.argv)
		}
	}
}

// TestSchedBatchAtExec: where godu has cgo, the switch to SCHED_BATCH is
// one system call made before the runtime starts a thread (the C
// constructor), not one for each thread found in /proc afterwards. musl
// implements sched_getscheduler and sched_setscheduler as failing stubs
// (ENOSYS): a constructor calling them did nothing in the static build,
// and every start paid for the switch of each thread. Counted with
// strace on the binary make build ships (GODU_BIN).
func TestSchedBatchAtExec(t *testing.T) {
	if !straceWorks() {
		t.Skip("strace not installed or cannot trace here")
	}
	// godu is built here in this environment, or is make build's binary
	// (GODU_BIN, with cgo) where the tests themselves are built with cgo.
	if out, _ := exec.Command("go", "env", "CGO_ENABLED").Output(); strings.TrimSpace(string(out)) != "1" {
		t.Skip("a build without cgo switches each thread")
	}
	underDefaultPolicy(t)
	dir := t.TempDir()
	// %process: clone, or clone3 (glibc's threads), by any strace.
	cmd := exec.Command("strace", "-f", "-qq", "-e", "trace=%process,sched_setscheduler", "-o", "/dev/stderr", godu, "-s", dir)
	cmd.Env = append(os.Environ(), "GODU_LOADAVG=0.00 0.00 0.00 1/100 7")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	var calls []string
	for _, l := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(l, "sched_setscheduler(") || strings.Contains(l, "clone") {
			calls = append(calls, l)
		}
	}
	if len(calls) == 0 || !strings.Contains(calls[0], "sched_setscheduler(0, SCHED_BATCH") || !strings.Contains(calls[0], "= 0") {
		t.Fatalf("the first of the calls is not a successful sched_setscheduler(0, SCHED_BATCH): %q", calls)
	}
	for _, l := range calls[1:] {
		if strings.Contains(l, "sched_setscheduler(") {
			t.Errorf("another switch after the constructor's: %q", l)
		}
	}
}

// underDefaultPolicy locks the test to its thread for the rest of it and
// puts the thread back under the default policy (SCHED_OTHER) from
// SCHED_BATCH, where the command's constructor, which this test binary
// holds, put it. A test run under another policy (chrt) has no default
// to start godu under, and is skipped.
func underDefaultPolicy(t *testing.T) {
	const other, batch = 0, 3
	runtime.LockOSThread()
	t.Cleanup(runtime.UnlockOSThread)
	var param [4]int32
	if policy, _, _ := syscall.RawSyscall(syscall.SYS_SCHED_GETSCHEDULER, 0, 0, 0); policy == batch {
		syscall.RawSyscall(syscall.SYS_SCHED_SETSCHEDULER, 0, other, uintptr(unsafe.Pointer(&param[0])))
	}
	if policy, _, errno := syscall.RawSyscall(syscall.SYS_SCHED_GETSCHEDULER, 0, 0, 0); errno != 0 || policy != other {
		t.Skipf("the test runs under policy %d, not the default", policy)
	}
}
