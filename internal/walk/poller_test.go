//go:build linux

package walk

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The runtime's poller takes two descriptors the first time a timer is
// set, and dies when it cannot: a program whose first timer is the
// garbage collector's, set while a walk holds every descriptor left
// (ulimit -n 8), died with "netpollinit failed". New takes them first.
// Checked in a process of its own, where nothing set a timer before.
func TestPollerBeforeWalk(t *testing.T) {
	if os.Getenv("GODU_POLLER_CHILD") == "1" {
		if pollerOpen(t) {
			t.Skip("the poller was started before the test")
		}
		w := New(Options{Jobs: 2, MaxDepth: -1})
		if !pollerOpen(t) {
			t.Fatal("New started no poller")
		}
		if _, err := w.Walk(context.Background(), t.TempDir()); err != nil {
			t.Fatal(err)
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestPollerBeforeWalk$", "-test.v", "-test.timeout=0")
	cmd.Env = append(os.Environ(), "GODU_POLLER_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS") {
		t.Fatalf("%v\n%s", err, out)
	}
}

// pollerOpen says whether the process holds an epoll descriptor.
func pollerOpen(t *testing.T) bool {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip(err)
	}
	for _, e := range ents {
		if l, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil && strings.Contains(l, "eventpoll") {
			return true
		}
	}
	return false
}
