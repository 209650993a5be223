package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSchedBatch: started under the default policy, every thread of godu
// runs under SCHED_BATCH, its nice value kept (bulk.TuneProcess); started
// under another policy (here SCHED_IDLE, which needs no privilege), it
// keeps that one. Read from /proc while godu, its first operand walked,
// waits for the next name of --files0-from.
func TestSchedBatch(t *testing.T) {
	root := t.TempDir()
	for i := range 50 {
		os.MkdirAll(filepath.Join(root, "d", strconv.Itoa(i), "e"), 0o755)
	}
	const batch, idle = 3, 5
	// godu inherits the test's policy and nice value: a test run under
	// another policy (chrt) has no default one to start godu under.
	if policy, _, errno := syscall.RawSyscall(syscall.SYS_SCHED_GETSCHEDULER, 0, 0, 0); errno != 0 || policy != 0 {
		t.Skipf("the test runs under policy %d, not the default", policy)
	}
	prio, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0)
	if err != nil {
		t.Fatal(err)
	}
	nice := 20 - prio // the raw getpriority system call returns 20 - nice
	for _, c := range []struct {
		argv   []string
		policy int
		nice   string
	}{
		{[]string{godu}, batch, strconv.Itoa(nice)},
		{[]string{"nice", "-n", "3", godu}, batch, strconv.Itoa(min(nice+3, 19))},
		{[]string{"chrt", "-i", "0", godu}, idle, strconv.Itoa(nice)},
	} {
		if _, err := exec.LookPath(c.argv[0]); err != nil && c.argv[0] != godu {
			t.Logf("%s: %v", c.argv[0], err)
			continue
		}
		cmd := exec.Command(c.argv[0], append(c.argv[1:], "-s", "--files0-from=-")...)
		cmd.Dir = root
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
				t.Errorf("%q: thread %s has policy %d and nice %s, want %d and %s", c.argv, task.Name(), policy, f[19-3], c.policy, c.nice)
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
