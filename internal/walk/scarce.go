package walk

import "github.com/godu-sh/godu/internal/sys"

// openScarce calls open, which opens (and reads) directory d, until it
// opens d or fails for another reason than a lack of descriptors, at most
// scarceTries times. Out of descriptors, it sheds those of directories
// that only wait to open subdirectories, waits a little for other workers
// to close theirs, and tries again; workers short of descriptors try one
// at a time (scarce), so that a few descriptors are not shared out a piece
// to each. open is told how many times it waited, to try other ways after
// a few (visit opens a directory by its path then). It returns open's
// last error.
//
// An operand is opened before anything else of its walk: no descriptor
// of the walk's is open to shed or to wait for, and only the rest of the
// process could close one. It gets fewTries, and none once an operand of
// the Walker's found none (under ulimit -n 5 the runtime's two
// descriptors leave none: each of 1,640 operands waited a second).
func (sc *scan) openScarce(d *dir, open func(waits int) (opened bool, err error)) error {
	scarce := false
	operand := d.parent == nil
	hopeless := &sc.hopeless // (a walk's own: other walks of the Walker may run)
	if operand {
		hopeless = &sc.w.operandsHopeless
	}
	tries := scarceTries
	switch {
	case operand && hopeless.Load():
		tries = 0
	case operand || hopeless.Load():
		tries = fewTries
	}
	var err error
	for waits := 0; ; waits++ {
		var opened bool
		opened, err = open(waits)
		if opened && operand && hopeless.Load() {
			hopeless.Store(false) // descriptors to be had again
		}
		if opened && waits == 0 {
			sc.opened(1)
		}
		if !tooManyFiles(err) || opened {
			break
		}
		if waits == tries {
			hopeless.Store(true)
			break
		}
		if !scarce {
			sc.waitFor(d, true)
			sc.scarce.Lock()
			scarce = true
		}
		sc.outOfDescriptors()
		// Descriptors closed here are tried at once; with none, after a
		// pause for other workers to close theirs, and, none found twice
		// for a directory below an operand, the walk goes on with one
		// worker (starved). First the others: d's parent, shed, would be
		// reopened at once. Then the cursors, and d's parent last; at
		// once all of them once that did not do.
		shed := sc.shed(d.parent)
		if shed == 0 {
			shed += sc.shedCursors()
		}
		if (shed == 0 || waits > 0) && d.parent != nil {
			if closed, _ := d.parent.fd.shed(); closed {
				scarcity.shed.Add(1)
				shed++
			}
		}
		if shed == 0 {
			if waits > 0 && !operand {
				sc.starved()
			}
			scarcity.pauses.Add(1)
			pause()
		}
	}
	if scarce {
		sc.scarce.Unlock()
		sc.waitFor(d, false)
	}
	return err
}

// scarceTries is how many times openScarce retries, fewTries how many
// once a directory has gone unopened after scarceTries, and for an
// operand.
const (
	scarceTries = 1000
	fewTries    = 16
)

// waitFor adds d to (or removes it from) the directories whose opening
// waits for a descriptor.
func (sc *scan) waitFor(d *dir, waits bool) {
	sc.waitMu.Lock()
	defer sc.waitMu.Unlock()
	if waits {
		sc.waiting = append(sc.waiting, d)
		return
	}
	for i, w := range sc.waiting {
		if w == d {
			sc.waiting = append(sc.waiting[:i], sc.waiting[i+1:]...)
			break
		}
	}
}

// shed closes the descriptors of directories (but except) that are
// only waiting to open more subdirectories (they are reopened on demand),
// when the process has run out of descriptors. It returns how many it
// closed. Such a directory is the parent of a directory pushed on the
// shared stack (held) or of one whose opening waits for a descriptor: a
// read directory keeps its descriptor only while subdirectories of it
// wait or are being opened, and one being opened right now is in use.
// held keeps only those open still after it: each directory pushed
// costs a shed once, where looking at every directory on the stack cost
// a comb's sheds time quadratic in its depth.
func (sc *scan) shed(except *dir) int {
	sc.stackMu.Lock()
	defer sc.stackMu.Unlock()
	sc.waitMu.Lock()
	defer sc.waitMu.Unlock()
	n := 0
	kept := sc.held[:0]
	for _, d := range sc.held {
		if d == except {
			kept = append(kept, d)
			continue
		}
		closed, open := d.fd.shed()
		if closed {
			n++
		}
		if open {
			kept = append(kept, d)
		}
	}
	clear(sc.held[len(kept):])
	sc.held = kept
	for _, c := range sc.waiting {
		if d := c.parent; d != nil && d != except {
			if closed, _ := d.fd.shed(); closed {
				n++
			}
		}
	}
	scarcity.shed.Add(int64(n))
	return n
}

// holdParents adds the parents of ds, pushed, to those shed looks at,
// under stackMu. Once held has doubled since it was last compacted, it
// keeps only those whose descriptors are open still: its length stays
// within twice the descriptors open, and it keeps no closed directory
// alive, whatever the size of the walk (a parent pushed twice, with
// another's between, is there twice).
func (sc *scan) holdParents(ds []*dir) {
	for i, d := range ds {
		if p := d.parent; p != nil && (i == 0 || ds[i-1].parent != p) && (len(sc.held) == 0 || sc.held[len(sc.held)-1] != p) {
			sc.held = append(sc.held, p)
		}
	}
	if len(sc.held) < sc.heldMax {
		return
	}
	kept := sc.held[:0]
	for _, d := range sc.held {
		if d.fd.mayBeOpen() {
			kept = append(kept, d)
		}
	}
	clear(sc.held[len(kept):])
	sc.held = kept
	sc.heldMax = max(64, 2*len(kept))
}

// pathFirst reports whether d, whose opening has not waited yet, is to
// be opened by its path first, byPathFirst set: not while its parent's
// descriptor is open, and not one time in pathTrial, either of which
// opened without a wait ends the paths' turn. Opened by path each time
// once one was, a walk that had descriptors again (ulimit -n 7, several
// workers, a chain of 1,500 levels over a tree) opened 9,000 directories
// by paths as long as their depth, 1 run in 6 at 12 times the others'
// time.
func (sc *scan) pathFirst(d *dir) bool {
	d.parent.fd.lock()
	open := d.parent.fd.Fd() >= 0
	d.parent.fd.unlock()
	return !open && sc.pathTries.Add(1)%pathTrial != 0
}

// pathTrial: of the directories pathFirst would open by path, one in
// pathTrial is opened below its parent first.
const pathTrial = 16

// hold adds d, whose descriptor was reopened, to those shed looks at.
func (sc *scan) hold(d *dir) {
	sc.stackMu.Lock()
	sc.held = append(sc.held, d)
	sc.stackMu.Unlock()
}

// pause waits a millisecond for other workers to close descriptors. Not
// time.Sleep: the runtime's first timer needs a descriptor of its own
// (epoll), and there is none to be had.
func pause() {
	sys.Pause()
}

// tooManyFiles reports whether err means the process or system is out of
// descriptors.
func tooManyFiles(err error) bool { return err == sys.EMFILE || err == sys.ENFILE }
