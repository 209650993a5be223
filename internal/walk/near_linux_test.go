//go:build linux

package walk

import (
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/godu-sh/godu/internal/bulk"
)

// TestCursorLockOrder: a worker that reopened d from its cursor (below d)
// drops the cursor once d's lock is let go, never under it: locks go
// child to parent, and reopenBeneath, reopening x more than PATH_MAX
// below the cursor, holds the cursor's lock (an ancestor a path's length
// up, reopened itself) while it locks d. Dropped under d's lock, the two
// waited on each other for ever (found by an outside review).
func TestCursorLockOrder(t *testing.T) {
	root := t.TempDir()
	mk := func(parent *dir, name string) *dir {
		p := filepath.Join(parent.path(), name)
		if err := unix.Mkdir(p, 0o755); err != nil && err != unix.EEXIST {
			t.Fatal(err)
		}
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			t.Fatal(err)
		}
		rec := bulk.Record{Dev: uint64(st.Dev), Ino: st.Ino, Type: bulk.Directory}
		d := newDir(parent, name, parent.depth+1, &rec)
		d.fd = new(descriptor)
		return d
	}
	var st unix.Stat_t
	unix.Stat(root, &st)
	R := newDir(nil, root, 0, &bulk.Record{Dev: uint64(st.Dev), Ino: st.Ino, Type: bulk.Directory})
	R.fd = new(descriptor)
	d := mk(R, "d")
	s := mk(d, "s")
	m := d
	for i := 1; i <= 9; i++ {
		m = mk(m, "m")
	}
	c := mk(m, strings.Repeat("c", 100))
	e := c
	// 16 levels of 250-byte names below c, made relative to a
	// descriptor: x's path from the operand is past PATH_MAX.
	cfd, err := unix.Open(c.path(), unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	cur := cfd
	for i := 0; i < 16; i++ {
		name := strings.Repeat(string(rune('a'+i)), 250)
		unix.Mkdirat(cur, name, 0o755)
		var st unix.Stat_t
		unix.Fstatat(cur, name, &st, unix.AT_SYMLINK_NOFOLLOW)
		rec := bulk.Record{Dev: uint64(st.Dev), Ino: st.Ino, Type: bulk.Directory}
		n := newDir(e, name, e.depth+1, &rec)
		n.fd = new(descriptor)
		e = n
		nfd, _ := unix.Openat(cur, name, unix.O_RDONLY|unix.O_DIRECTORY, 0)
		unix.Close(cur)
		cur = nfd
	}
	unix.Mkdirat(cur, "x", 0o755)
	var xs unix.Stat_t
	unix.Fstatat(cur, "x", &xs, unix.AT_SYMLINK_NOFOLLOW)
	x := newDir(e, "x", e.depth+1, &bulk.Record{Dev: uint64(xs.Dev), Ino: xs.Ino, Type: bulk.Directory})
	x.fd = new(descriptor)
	unix.Close(cur)

	w := New(Options{Jobs: 4})
	sc := &scan{w: w}
	wk1, wk2, wk3 := w.getWorker(), w.getWorker(), w.getWorker()
	sc.linger.Store(true)
	// wk1's cursor: c, shed (closed). wk2's: s, open.
	wk1.cursor.Store(c)
	sfd, err := unix.Open(s.path(), unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	s.fd.OpenFd(sfd, sc.mode, s.dev)
	wk2.cursor.Store(s)

	// Hold R's lock so that T1 stops in reopenNear holding d's.
	R.fd.lock()
	t1 := make(chan error, 1)
	go func() {
		_, err := sc.useFd(wk1, d)
		d.fd.done()
		t1 <- err
	}()
	time.Sleep(100 * time.Millisecond)
	t2 := make(chan error, 1)
	go func() {
		_, err := sc.useFd(wk3, x)
		x.fd.done()
		t2 <- err
	}()
	time.Sleep(200 * time.Millisecond) // T2: holds x's and c's locks, waits for d's
	R.fd.unlock()
	select {
	case err := <-t1:
		t.Logf("T1 done: %v", err)
	case <-time.After(3 * time.Second):
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		for _, g := range strings.Split(string(buf), "\n\n") {
			if strings.Contains(g, "near_linux_test.go") {
				t.Log(g)
			}
		}
		t.Fatalf("deadlock: T1 (useFd of d, holds d, drops cursor c) and T2 (useFd of x below c, holds c, locks d) stuck")
	}
	select {
	case err := <-t2:
		t.Logf("T2 done: %v", err)
	case <-time.After(3 * time.Second):
		t.Fatalf("T2 stuck")
	}
}

// TestStarvedUnderDecision: starved takes the pacer's lock, so that a
// decision under way, which stores its own allowance, cannot undo the
// walk's one worker after it (nor can a later one: paced looks again
// under the lock). Before, the allowance stayed above 1 for the rest of
// the walk.
func TestStarvedUnderDecision(t *testing.T) {
	w := New(Options{Jobs: 8})
	sc := &scan{w: w}
	sc.pace.on = true
	sc.pace.cpus = 2
	sc.live.Jobs.Store(2)
	wk := w.getWorker()
	entered, goOn := make(chan struct{}), make(chan struct{})
	paceWant = func(cpus, jobs int32) int32 { close(entered); <-goOn; return 6 }
	defer func() { paceWant = nil }()
	paced := make(chan struct{})
	go func() { sc.paced(wk, time.Hour); close(paced) }()
	<-entered
	starved := make(chan struct{})
	go func() { sc.starved(); close(starved) }()
	time.Sleep(20 * time.Millisecond) // (starved would have stored 1 by now)
	close(goOn)
	<-paced
	<-starved
	if j := sc.live.Jobs.Load(); j != 1 {
		t.Errorf("starved, yet live.Jobs = %d", j)
	}
	paceWant = func(cpus, jobs int32) int32 { return 6 }
	sc.pace.due.Store(0)
	sc.paced(wk, 2*time.Hour)
	if j := sc.live.Jobs.Load(); j != 1 {
		t.Errorf("starved, then paced: live.Jobs = %d", j)
	}
}

// TestAloneEnds: once one worker went on alone, aloneFor directories
// opened without a wait give the walk its workers back; those a subtree
// walk read count as well.
func TestAloneEnds(t *testing.T) {
	sc := &scan{w: New(Options{Jobs: 8})}
	sc.pace.cpus = 2
	sc.live.Jobs.Store(2)
	sc.starved()
	for range aloneFor - 1 {
		sc.opened(1)
	}
	if j := sc.live.Jobs.Load(); j != 1 || !sc.alone.Load() {
		t.Fatalf("after %d opens: live.Jobs %d, alone %v", aloneFor-1, j, sc.alone.Load())
	}
	sc.opened(1)
	if j := sc.live.Jobs.Load(); j != 2 || sc.alone.Load() {
		t.Errorf("after %d opens: live.Jobs %d, alone %v; want 2, false", aloneFor, j, sc.alone.Load())
	}
	sc.starved()
	sc.opened(aloneFor)
	if sc.alone.Load() {
		t.Errorf("a subtree walk's %d directories did not end it", aloneFor)
	}
}
