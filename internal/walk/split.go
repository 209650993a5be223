package walk

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/godu-sh/godu/internal/bulk"
)

// readRest reads the rest of a directory that did not fit in one batch.
// Where the system can list names apart from examining them, the listing
// stays here and the batches of names are examined by other workers (examiners), so
// a huge directory does not serialise on one core. With subtree walks,
// each examined batch's subdirectories are read by one, on its examiner:
// a directory of many subdirectories costs a call per batch, not a visit
// per subdirectory. What those walks leave (rest) waits until the listing
// is done, for visit to count it in d's claims before anything opens
// relative to d.
func (sc *scan) readRest(wk *worker, d *dir) (rest *restTrees, err error) {
	rd := wk.rd
	if !bulk.CanSplit {
		for {
			b, err := rd.Read(&d.fd.Dir)
			sc.addBatch(wk, d, &b, false)
			if err != nil || !b.More {
				return nil, err
			}
		}
	}
	rest = &restTrees{}
	d.fd.SetMode(sc.mode | bulk.NamesOnly)
	fd := d.fd.Fd()
	// The listing stays here; listed batches go to a short queue that
	// examiners drain, each taking the next batch as soon as it is done, so
	// listing never waits on one batch's statx calls. Examiners are started
	// whenever a slot is free; with the queue full, this worker examines
	// a batch itself.
	type listed struct {
		wk *worker // holds the batch's buffers
		b  bulk.Batch
	}
	queue := make(chan listed, sc.w.opts.Jobs)
	examine := func(l listed) {
		b := l.wk.rd.Stat(fd, d.dev, l.b, sc.mode)
		if sc.subtrees {
			sc.addBatchTrees(l.wk, d, b, rest)
		} else {
			sc.addBatch(l.wk, d, &b, false)
		}
		sc.w.putWorker(l.wk)
	}
	var examiners sync.WaitGroup
	examiner := func() error {
		defer examiners.Done()
		for l := range queue {
			examine(l)
		}
		return nil
	}
	nexaminers := 0
	for more := true; more && err == nil; {
		var names bulk.Batch
		names, err = rd.Read(&d.fd.Dir)
		more = names.More
		lw := sc.w.getWorker()
		l := listed{lw, lw.rd.Adopt(rd, names)}
		if nexaminers < sc.w.opts.Jobs-1 {
			examiners.Add(1)
			if sc.g.TryGo(examiner) {
				nexaminers++
			} else {
				examiners.Done()
			}
		}
		select {
		case queue <- l:
		default:
			examine(l)
		}
	}
	close(queue)
	for l := range queue { // help drain, then wait for the examiners
		examine(l)
	}
	examiners.Wait()
	return rest, err
}

// addBatchTrees adds batch b of d's entries as addBatch does, its
// subdirectories read by subtree walks on wk, treeChunk records at a
// time so that each walk has room for what it finds below them; what the
// walks leave goes to rest.
func (sc *scan) addBatchTrees(wk *worker, d *dir, b bulk.Batch, rest *restTrees) {
	recs := b.Records
	for first := true; first || len(recs) > 0; first = false {
		part := b
		part.Records = recs[:min(len(recs), treeChunk)]
		recs = recs[len(part.Records):]
		if !first {
			part.Folded = bulk.Sum{} // added with the first part
		}
		wk.rd.TreeStart()
		sc.addBatch(wk, d, &part, true)
		if wk.rd.TreeLen() == 0 {
			continue
		}
		left, next, nextFd, direct, directLeft := sc.readSubtrees(wk, d)
		rest.mu.Lock()
		rest.left = append(rest.left, left...)
		if next != nil {
			rest.next = append(rest.next, handed{next, nextFd})
		}
		rest.direct += direct
		rest.opening += directLeft
		rest.mu.Unlock()
	}
}

// treeChunk is how many records of an examined batch go to one subtree
// walk: half its node room, the rest left for what it finds.
const treeChunk = bulk.TreeNodes / 2

// restTrees is what the subtree walks of readRest's examiners left:
// directories to visit (left, and next: each open already, handed on by
// its walk), how many of both are d's own subdirectories (direct), and
// how many of those open relative to d (opening).
type restTrees struct {
	mu              sync.Mutex
	left            []*dir
	next            []handed
	direct, opening int
}

// handed is a directory a subtree walk opened and left, and its descriptor.
type handed struct {
	d  *dir
	fd int
}

// splitMin is the fewest records of the operand's first batch that are
// split between two workers: below it, starting the second costs more than
// it saves. A variable for tests.
var splitMin = 256

// listedTail is the part of a listed batch that another worker examines:
// b, in wk's buffers. Whoever claims it first examines it: the worker
// started for it, or, when that one has not run yet by the time the first
// half is done (the CPUs are busy elsewhere), the walk's own worker, so
// that the split never waits on a goroutine not yet scheduled.
type listedTail struct {
	wk      *worker
	tb      bulk.Batch // as listed
	b       bulk.Batch // as examined
	claimed atomic.Bool
	wait    sync.WaitGroup // done once the started worker has examined it
	stat    func()
}

// take returns the tail examined: by this goroutine if still unclaimed,
// else once the worker started for it is done.
func (t *listedTail) take() bulk.Batch {
	if t.claimed.CompareAndSwap(false, true) {
		t.stat()
	} else {
		t.wait.Wait()
	}
	return t.b
}

// statListed examines the records of b, just listed (NamesOnly) from d by
// wk. When there are splitMin or more, another worker, started for it,
// examines the second half meanwhile: the tail returned, to be added once
// its wait is done (and its worker put back).
func (sc *scan) statListed(wk *worker, d *dir, b bulk.Batch) (bulk.Batch, *listedTail) {
	fd := d.fd.Fd()
	n := len(b.Records)
	stat := func(b bulk.Batch) bulk.Batch {
		more := b.More
		b = wk.rd.Stat(fd, d.dev, b, sc.mode)
		b.More = more
		return b
	}
	if n < splitMin || sc.w.opts.Jobs < 2 || runtime.NumCPU() < 2 {
		return stat(b), nil
	}
	t := &listedTail{wk: sc.w.getWorker()}
	var head bulk.Batch
	head, t.tb = t.wk.rd.Split(wk.rd, b, n/2)
	t.stat = func() { t.b = t.wk.rd.Stat(fd, d.dev, t.tb, sc.mode) }
	t.wait.Add(1)
	if !sc.g.TryGo(func() error {
		if t.claimed.CompareAndSwap(false, true) {
			t.stat()
			t.wait.Done()
		}
		return nil
	}) {
		sc.w.putWorker(t.wk)
		return stat(b), nil
	}
	head.More = b.More
	return stat(head), t
}
