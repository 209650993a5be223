package walk

import (
	"runtime"
	"strings"

	"github.com/godu-sh/godu/internal/sys"
)

// Once a walk has had to reopen a directory (it ran out of descriptors),
// each worker keeps one descriptor more: that of the directory it last
// finished with (its cursor), left open past its last claim until the
// next takes its place. A shed directory is then reopened from the cursor
// by the path between them, up by ".." to their nearest common directory
// and down by names (reopenNear). Workers take the directory found last
// first, so the one to reopen is mostly an ancestor of the cursor, or a
// sibling of one, a level or two away, and going back up the tree costs,
// over the walk, the levels it went down: a comb's teeth, each waiting
// while the chain below it is walked, cost one open each, where reopening
// them from the nearest ancestor still open (the operand, once the sheds
// have closed the rest) cost their depth each, a time quadratic in the
// depth.

// outOfDescriptors marks the walk out of descriptors, for the rest of
// it: each worker keeps a cursor.
func (sc *scan) outOfDescriptors() {
	if !sc.linger.Load() && nearWorks {
		sc.linger.Store(true)
	}
}

// nearWorks: reopenNear can open a path with ".." from a descriptor
// (not Windows: the walk there keeps no cursors).
const nearWorks = runtime.GOOS != "windows"

// starved: shedding found no descriptor to close, twice for one
// directory below an operand; one worker goes on alone, as the others
// leave (live.Jobs, which pacing raises no more), until aloneFor
// directories opened without a wait (opened). Where each needs a descriptor for its cursor
// and two to open a directory, more workers than descriptors keep
// closing each other's: on a comb of 16,000 levels under ulimit -n 7 six
// workers crossed 250 times the levels one did (the reopens' steps),
// each reopen from further up, and took six times as long. Where
// sheds free descriptors (ulimit -n 16 there), workers go on.
func (sc *scan) starved() {
	if sc.alone.Load() {
		return
	}
	sc.pace.mu.Lock() // (a decision under way would store its own)
	if !sc.alone.Load() {
		sc.alone.Store(true)
		sc.aloneOpens.Store(0)
		sc.live.Jobs.Store(1)
	}
	sc.pace.mu.Unlock()
}

// opened counts, while one worker goes on alone (starved), n more
// directories opened without a wait (by a visit, or a subtree walk's):
// after aloneFor of them the walk has descriptors again, and pacing
// decides the workers as before, a short shortage leaving the rest of a
// big walk its workers.
func (sc *scan) opened(n int32) {
	if !sc.alone.Load() || sc.aloneOpens.Add(n) < aloneFor {
		return
	}
	sc.pace.mu.Lock()
	if sc.alone.Load() {
		sc.alone.Store(false)
		sc.live.Jobs.Store(max(sc.pace.cpus, 1))
	}
	sc.pace.mu.Unlock()
}

// aloneFor is how many directories one worker opens without a wait
// before the others may come back (opened).
const aloneFor = 4096

// keep drops one claim on d's descriptor as release does, but the last
// leaves it open as wk's cursor, closing the cursor before it. Before the
// walk reopened anything, it is release.
func (sc *scan) keep(wk *worker, d *dir) {
	if d == nil {
		return
	}
	if !sc.linger.Load() {
		d.fd.release()
		return
	}
	if d.fd.claims.Add(-1) != 0 {
		return
	}
	d.fd.lock()
	open := d.fd.Fd() >= 0
	d.fd.unlock()
	if open {
		wk.dropCursor()
		wk.cursor.Store(d)
	}
}

// dropCursor closes wk's cursor, if any (nil: no worker, none): when the
// worker stops, when it keeps another, and once a directory was reopened
// from it (useFd). The caller holds no descriptor's lock.
func (wk *worker) dropCursor() bool {
	if wk == nil {
		return false
	}
	c := wk.cursor.Swap(nil)
	return c != nil && closeCursor(c)
}

// closeCursor closes a cursor's descriptor and reports whether it was
// open. The caller holds no descriptor's lock.
func closeCursor(c *dir) bool {
	c.fd.lock()
	defer c.fd.unlock()
	open := c.fd.Fd() >= 0
	c.fd.Close()
	return open
}

// reopenNear reopens d, whose parent's descriptor is shed, from wk's
// cursor or the nearest other worker's, by one open (with flags) of the
// path from the cursor to d, checked to lead to d (device and inode); or
// returns -1, with an error only when descriptors ran out: no cursor, a
// path of PathMax or more, a symlink on the way, or another directory at
// its end (a rename, or under -L a directory reached through a symlink,
// whose ".." is another).
func (sc *scan) reopenNear(wk *worker, d *dir, flags int) (int, error) {
	// wk's cursor, or the nearest of the other workers' (shed, wk's is
	// gone until its next keep).
	c, a := wk.cursor.Load(), (*dir)(nil)
	if c != nil {
		a = common(c, d)
	}
	if a == nil || c.depth+d.depth-2*a.depth > nearEnough {
		nearer := func(oc *dir) {
			if oc != nil && oc != c {
				if oa := common(oc, d); oa != nil && (a == nil || oc.depth-2*oa.depth < c.depth-2*a.depth) {
					c, a = oc, oa
				}
			}
		}
		sc.w.workMu.Lock()
		for _, o := range sc.w.all {
			nearer(o.cursor.Load())
		}
		sc.w.workMu.Unlock()
	}
	if a == nil {
		return -1, nil
	}
	up, down := c.depth-a.depth, d.depth-a.depth
	if 3*up+d.plen-a.plen >= sys.PathMax {
		return -1, nil
	}
	names := make([]string, up+down)
	for i := range up {
		names[i] = ".."
	}
	for x, i := d, len(names)-1; x != a; x, i = x.parent, i-1 {
		names[i] = x.name
	}
	if !c.fd.mu.TryLock() {
		return -1, nil
	}
	cfd := c.fd.Fd()
	if cfd < 0 {
		c.fd.unlock()
		return -1, nil
	}
	fd, err := openNear(cfd, strings.Join(names, "/"), flags)
	c.fd.unlock()
	if err != nil {
		if tooManyFiles(err) {
			return -1, err
		}
		return -1, nil
	}
	if !sameDir(fd, d) {
		sys.Close(fd)
		return -1, nil
	}
	scarcity.near.Add(1)
	scarcity.steps.Add(int64(up + down))
	return fd, nil
}

// shedCursors closes the workers' cursors not in use (the Walker's: those
// of its other walks too), as shed does the descriptors of directories
// that wait; their workers go without until their next keep. It returns
// how many it closed.
func (sc *scan) shedCursors() int {
	n := 0
	sc.w.workMu.Lock()
	defer sc.w.workMu.Unlock()
	for _, wk := range sc.w.all {
		if c := wk.cursor.Load(); c != nil {
			if closed, _ := c.fd.shed(); closed {
				wk.cursor.CompareAndSwap(c, nil) // (unless its keep came first)
				n++
			}
		}
	}

	scarcity.shed.Add(int64(n))
	return n
}

// nearEnough is how many levels apart a worker's cursor may be from the
// directory to reopen before the other workers' are looked at.
const nearEnough = 8

// common is the nearest directory above or at both a and b, or nil (two
// walks'), by jump pointers (meet).
func common(a, b *dir) *dir {
	x, y := meet(a, b, nil)
	if x == y {
		return x
	}
	return x.parent
}
