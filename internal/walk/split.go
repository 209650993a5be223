package walk

import (
	"math"
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
// per subdirectory. Subdirectories found, and what those walks leave, are
// passed on batch by batch, while the listing goes on.
func (sc *scan) readRest(wk *worker, d *dir) error {
	rd := wk.rd
	// A walk ended by its caller stops between batches: a directory of
	// millions of entries is not read to its end first.
	if !bulk.CanSplit {
		for {
			b, err := rd.Read(&d.fd.Dir)
			sc.addBatch(wk, d, &b, false)
			sc.passSubdirs(d)
			if err != nil || !b.More || sc.ctx.Err() != nil {
				return err
			}
		}
	}
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
	var board shareBoard // batches being examined, open to help
	queue := make(chan listed, sc.w.opts.Jobs)
	// An examiner examines the entries that may be subdirectories first
	// and passes on what is below them, then the others.
	examine := func(l listed) {
		sc.yield(l.wk)
		k := l.wk.dirsFirst(l.b)
		head := l.b
		head.Records = head.Records[:k]
		head = l.wk.rd.Stat(fd, d.dev, head, sc.mode)
		var nexts []handed
		if sc.subtrees {
			nexts = sc.addBatchTrees(l.wk, d, head)
		} else {
			sc.addBatch(l.wk, d, &head, false)
			sc.passSubdirs(d)
		}
		// The others are shared, a chunk at a time, with whoever finds
		// nothing else to do: the examiners once the queue is empty, the
		// lister once the listing is done.
		s := newShared(afterFirst(l.b, k), fd, d.dev, sc.mode)
		board.post(s)
		s.examine(l.wk.rd)
		b := s.result()
		board.take(s)
		sc.addBatch(l.wk, d, &b, false)
		sc.passSubdirs(d) // (one the listing did not type as a directory)
		for _, h := range nexts {
			sc.visitChain(l.wk, h.d, h.fd)
		}
		sc.w.putWorker(l.wk)
	}
	var examiners sync.WaitGroup
	// An examiner finding the queue empty helps with the batches posted
	// meanwhile, then waits for the next batch (or the end).
	examiner := func() error {
		defer examiners.Done()
		hw := sc.w.getWorker()
		defer sc.w.putWorker(hw)
		for {
			var l listed
			var ok bool
			select {
			case l, ok = <-queue:
			default:
				board.help(hw.rd)
				l, ok = <-queue
			}
			if !ok {
				board.help(hw.rd)
				return nil
			}
			examine(l)
		}
	}
	nexaminers := 0
	var err error
	for more := true; more && err == nil && sc.ctx.Err() == nil; {
		var names bulk.Batch
		sc.yield(wk)
		names, err = rd.Read(&d.fd.Dir)
		more = names.More
		lw := sc.w.getWorker()
		l := listed{lw, lw.rd.Adopt(rd, names)}
		if nexaminers < int(sc.live.Jobs.Load())-1 {
			examiners.Add(1)
			if sc.tryGo(examiner) {
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
	board.help(rd)
	examiners.Wait()
	return err
}

// addBatchTrees adds batch b of d's entries as addBatch does, its
// subdirectories read by subtree walks on wk, treeChunk records at a
// time so that each walk has room for what it finds below them; what the
// walks leave is passed on. A directory a walk handed over open goes to a
// worker started for it, or, with no slot free, is returned, for the
// caller to visit once wk's buffers no longer hold b.
func (sc *scan) addBatchTrees(wk *worker, d *dir, b bulk.Batch) (nexts []handed) {
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
		sc.passSubdirs(d) // those the walk had no room for
		if wk.rd.TreeLen() == 0 {
			continue
		}
		left, hs, direct, directLeft := sc.readSubtrees(wk, d, false)
		sc.pass(d, left, direct, directLeft)
		for _, h := range hs {
			if !sc.visitOn(h.d, h.fd) {
				nexts = append(nexts, h)
			}
		}
	}
	return nexts
}

// visitOn visits d, open as fd, on a worker started for it (then the
// shared stack), if a slot is free.
func (sc *scan) visitOn(d *dir, fd int) bool {
	return sc.tryGo(func() error {
		wk := sc.w.getWorker()
		sc.visitChain(wk, d, fd)
		return sc.workThenPut(wk)
	})
}

// dirsFirst moves the records of b, just listed (NamesOnly) into wk's
// Reader, that may be subdirectories by the listing's types (Directory,
// Unknown) to the front, the others after them, both in listing order,
// and returns how many may be subdirectories: Stat examines a Reader's
// first records, the first part now, afterFirst's after.
func (wk *worker) dirsFirst(b bulk.Batch) int {
	recs := b.Records
	ds := wk.dirRecs[:0]
	j := 0
	for i := range recs {
		if t := recs[i].Type; t == bulk.Directory || t == bulk.Unknown {
			ds = append(ds, recs[i])
		} else {
			recs[j] = recs[i]
			j++
		}
	}
	copy(recs[len(ds):], recs[:j])
	copy(recs, ds)
	wk.dirRecs = ds[:0]
	return len(ds)
}

// afterFirst is the rest of b once its first k records were examined (and
// no longer needed): moved to the front of its Reader's buffers.
func afterFirst(b bulk.Batch, k int) bulk.Batch {
	n := copy(b.Records, b.Records[k:])
	b.Records = b.Records[:n]
	return b
}

// treeChunk is how many records of an examined batch go to one subtree
// walk: half its node room, the rest left for what it finds.
const treeChunk = bulk.TreeNodes / 2

// handed is a directory a subtree walk opened and left, and its descriptor.
type handed struct {
	d  *dir
	fd int
}

// splitMin is the fewest records of the operand's first batch that are
// split between two workers: below it, starting the second costs more than
// it saves. A variable for tests.
var splitMin = 256

// statChunk is how many records of a shared batch a worker examines at a
// time (statListed): the most its partner can be left waiting for, some
// 50 µs of statx calls.
const statChunk = 32

// sharedBatch is a listed batch whose records two workers examine, a
// chunk at a time, each taking the next chunk as soon as it is done with
// one. A worker that starts late takes fewer chunks; one that starts after
// the last chunk was taken takes none, and nobody waits for it: the walk's
// own worker waits only for chunks taken and not yet done.
type sharedBatch struct {
	b     bulk.Batch // as listed, in the lister's buffers
	fd    int
	dev   uint64
	mode  bulk.Mode
	next  atomic.Int32  // the next chunk to take
	left  atomic.Int32  // chunks not yet examined
	done  chan struct{} // closed when left reaches 0
	parts []bulk.Batch  // each chunk as examined, in place
}

// untaken reports whether chunks of s are left to take.
func (s *sharedBatch) untaken() bool { return int(s.next.Load())*statChunk < len(s.b.Records) }

// examine takes chunks until none is left, examining them with rd.
func (s *sharedBatch) examine(rd *bulk.Reader) {
	n := len(s.b.Records)
	for {
		i := int(s.next.Add(1)) - 1
		lo := i * statChunk
		if lo >= n {
			return
		}
		part := s.b
		part.Records = s.b.Records[lo:min(n, lo+statChunk)]
		s.parts[i] = rd.Stat(s.fd, s.dev, part, s.mode)
		if s.left.Add(-1) == 0 {
			close(s.done)
		}
	}
}

// newShared returns b, listed from the directory open as fd on dev, to be
// examined in mode by workers sharing it.
func newShared(b bulk.Batch, fd int, dev uint64, mode bulk.Mode) *sharedBatch {
	chunks := (len(b.Records) + statChunk - 1) / statChunk
	s := &sharedBatch{b: b, fd: fd, dev: dev, mode: mode, done: make(chan struct{}),
		parts: make([]bulk.Batch, chunks)}
	s.left.Store(int32(chunks))
	if chunks == 0 {
		close(s.done) // nothing to examine
	}
	return s
}

// shareBoard holds the shared batches of one directory whose chunks are
// still to be taken, for workers with nothing else to do to help with.
type shareBoard struct {
	mu      sync.Mutex
	batches []*sharedBatch
}

func (sb *shareBoard) post(s *sharedBatch) {
	sb.mu.Lock()
	sb.batches = append(sb.batches, s)
	sb.mu.Unlock()
}

// take removes s, every chunk of it examined.
func (sb *shareBoard) take(s *sharedBatch) {
	sb.mu.Lock()
	for i, t := range sb.batches {
		if t == s {
			sb.batches = append(sb.batches[:i], sb.batches[i+1:]...)
			break
		}
	}
	sb.mu.Unlock()
}

// help examines chunks of the posted batches with rd until none is left
// to take.
func (sb *shareBoard) help(rd *bulk.Reader) {
	for {
		var s *sharedBatch
		sb.mu.Lock()
		for _, t := range sb.batches {
			if t.untaken() {
				s = t
				break
			}
		}
		sb.mu.Unlock()
		if s == nil {
			return
		}
		s.examine(rd)
	}
}

// result waits for every chunk and returns the batch examined: the
// records each chunk kept moved together to the front, its sums added.
func (s *sharedBatch) result() bulk.Batch {
	<-s.done
	out := s.b
	out.Folded = bulk.Sum{TMaxSec: math.MinInt64} // none yet, as the cores report it
	k := 0
	for _, p := range s.parts {
		k += copy(s.b.Records[k:], p.Records)
		out.Folded.Add(p.Folded)
	}
	out.Records = s.b.Records[:k]
	return out
}

// statListed examines the records of b, just listed (NamesOnly) from d by
// wk. When there are splitMin or more and another worker can be started
// for them, the two share them a chunk at a time (sharedBatch); else wk
// examines them in one core call.
func (sc *scan) statListed(wk *worker, d *dir, b bulk.Batch) bulk.Batch {
	fd := d.fd.Fd()
	if len(b.Records) >= splitMin && sc.w.opts.Jobs >= 2 && runtime.NumCPU() >= 2 {
		s := newShared(b, fd, d.dev, sc.mode)
		if sc.tryGo(func() error {
			hw := sc.w.getWorker()
			s.examine(hw.rd)
			sc.w.putWorker(hw)
			return nil
		}) {
			s.examine(wk.rd)
			return s.result()
		}
	}
	more := b.More
	b = wk.rd.Stat(fd, d.dev, b, sc.mode)
	b.More = more
	return b
}

// mixedPass: a directory visited while a worker is idle may pass its
// subdirectories on before it examines its files (passMixed); and
// mixedPasses counts those that did. For tests.
var (
	mixedPass   = true
	mixedPasses atomic.Int64
	mixedAlways bool // as if a worker were always idle (tests)
)

// passMixed examines b, the entries just listed (NamesOnly) from d by wk,
// while a worker is idle: those that may be subdirectories first, and the
// subdirectories among them passed on before the others are examined
// (what is returned), so that the idle worker reads below while this one
// examines the files, where a chain of such directories would run on one
// worker. It does so where b is not the whole directory (its
// subdirectories are visited one by one then, not by a subtree walk), or
// holds 1 to bulk.MixedDirs of them among bulk.MixedFiles others or more.
// Else, or for the others, a batch of many entries is shared by two
// workers (statListed).
func (sc *scan) passMixed(wk *worker, d *dir, b bulk.Batch) bulk.Batch {
	ndir := 0
	for i := range b.Records {
		if t := b.Records[i].Type; t == bulk.Directory || t == bulk.Unknown {
			ndir++
		}
	}
	if ndir == 0 || !b.More && (ndir > bulk.MixedDirs || len(b.Records)-ndir < bulk.MixedFiles) {
		return sc.statListed(wk, d, b)
	}
	mixedPasses.Add(1)
	k := wk.dirsFirst(b)
	head := b
	head.Records = b.Records[:k]
	head = wk.rd.Stat(d.fd.Fd(), d.dev, head, sc.mode)
	sc.addBatch(wk, d, &head, false)
	sc.passSubdirs(d)
	return sc.statListed(wk, d, afterFirst(b, k))
}
