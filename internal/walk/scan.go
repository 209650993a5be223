package walk

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/godu-sh/godu/internal/bulk"
)

// scan is the state of one Walk call: the walk of one operand.
type scan struct {
	w *Walker
	// pathMax: following every symlink (-L), an entry whose path is this
	// long or longer cannot be examined, as du sees it (0: no bound).
	pathMax int
	ctx     context.Context
	g       *errgroup.Group
	rootDev uint64
	mode    bulk.Mode
	follow  bool // the operand is followed if a symlink

	linkMu sync.Mutex
	links  linkTable // hard-linked files met in this walk

	stackMu sync.Mutex
	stack   []*dir    // subdirectories found and not yet taken by a worker
	held    []*dir    // their parents, whose descriptors may be open (shed)
	heldMax int       // when held is next compacted (holdParents)
	keys    []heapKey // with heap: stack[i]'s key (order.go)
	// gate (on stackMu) is where workers wait while what they would read
	// next would only wait on the stream (emitter.holdsBack); gated
	// counts them.
	gate  sync.Cond
	gated atomic.Int32

	// linksNow: only the operand is reported (du -s; neither -S nor -L),
	// so which of a file's links is counted changes no figure: the first
	// met is, at once, instead of the first in traversal order.
	linksNow bool

	// ordered: following every symlink (du -L), a file or directory
	// reached by several paths is counted at the first in du's order, as
	// du does, whichever path the workers met first. Every file is
	// charged as a hard link is, by the emitter in order; every directory
	// is read when found but counted only once the emitter, going in du's
	// order, decides it is the first path to it (decide); until then it
	// cannot complete, and its errors wait on it (fail), each reported in
	// du's order. Directories are then kept at every depth, -d only
	// choosing the lines printed. With -l nothing counts once only, but
	// the walk is ordered all the same, for its messages' order.
	ordered bool

	scarce sync.Mutex // held by the worker retrying an open out of descriptors
	// byPathFirst: the last directory opened out of descriptors needed
	// its path (a chain under a limit that leaves one descriptor): the
	// next tries its path first instead of after pausing 8 times.
	byPathFirst atomic.Bool
	pathTries   atomic.Uint32 // (pathFirst)
	// hopeless: a directory could not be opened in scarceTries tries;
	// later ones get fewTries, so that a walk starved of descriptors ends
	// with du's message instead of pausing a second for each directory.
	hopeless atomic.Bool
	waitMu   sync.Mutex
	waiting  []*dir // directories whose opening waits for a descriptor
	// linger: the walk ran out of descriptors; each worker keeps its
	// cursor open (near.go). alone: shedding found none to close; one
	// worker goes on (starved).
	linger, alone atomic.Bool
	aloneOpens    atomic.Int32 // (opened)

	// subtrees: the subdirectories of a directory read whole are read
	// by the core's subtree walk (bulk.Reader.Tree) with subtreeMode.
	subtrees    bool
	subtreeMode bulk.Mode

	// live.Running counts the walk's workers: the caller's goroutine
	// while it works (Walk) and the group's goroutines (tryGo). It bounds
	// them by live.Jobs, the workers allowed at the moment, at most
	// Options.Jobs (pace.go), the caller's included, so that a slot the
	// caller leaves when it finds nothing more to do serves another
	// worker. live.Stacked is len(stack), read without the lock
	// (idle). Subtree walks read both while they work: one ends early for
	// a free worker when nothing waits for it.
	live bulk.Live
	// procs is the runtime's Ps (yield), one more once this walk added
	// the spare one (bulk.SpareP); started is when it started (since
	// epoch).
	procs   atomic.Int32
	started time.Duration
	pace    pacer
	// spinners is 1 while a worker waits for work awake (spin).
	spinners atomic.Int32

	em *emitter // with Options.Stream
	// heap: the shared stack is a heap in du's order (order.go), for a
	// stream where what is complete may wait on it (not linksNow).
	heap bool
}

func (sc *scan) reported(depth int) bool {
	return sc.w.opts.MaxDepth < 0 || depth <= sc.w.opts.MaxDepth
}

// kept reports whether a directory at depth gets a Node: when reported,
// and every directory of an ordered walk.
func (sc *scan) kept(depth int) bool {
	return sc.ordered || sc.reported(depth)
}

// fail reports an error met in d. With Options.Stream the errors come in
// du's order, each where du would print it: those of a reported directory
// that its emitter has not entered yet wait for it (errs: before anything
// of d's is printed); the others, those of directories below the -d limit
// included, wait in the nearest reported directory until it is complete
// and go, sorted by path, before its line (late). In an ordered walk they
// are dropped with d when it is not the first path to its directory (du
// never reads it). Without Stream they go at once.
func (sc *scan) fail(d *dir, op, path string, err error) {
	if sc.em == nil {
		sc.w.fail(op, path, err)
		return
	}
	k := d
	for k.node == nil {
		k = k.parent
	}
	e := Error{Op: op, Path: path, Err: err}
	k.mu.Lock()
	if k == d && !k.entered && op == "read directory" {
		k.errs = append(k.errs, e)
	} else {
		k.late = append(k.late, e)
	}
	k.mu.Unlock()
}

// push puts subdirectories on the shared stack, the first by name on top,
// so that the walk goes depth first in name order where it can.
func (sc *scan) push(ds []*dir) {
	if len(ds) == 0 {
		return
	}
	sc.stackMu.Lock()
	sc.holdParents(ds)
	for i := len(ds) - 1; i >= 0; i-- {
		if sc.heap {
			sc.heapPush(ds[i]) // order.go
		} else {
			sc.stack = append(sc.stack, ds[i])
		}
	}
	sc.live.Stacked.Store(int32(len(sc.stack)))
	if sc.gated.Load() > 0 {
		sc.gate.Broadcast() // it may be what a gated worker waits for
	}
	sc.stackMu.Unlock()
}

// pop takes the next directory from the shared stack, or returns nil when
// it is empty. With the stack a heap, it first waits while the stream
// holds back the directory that comes first (emitter.holdsBack): the
// workers then read what the stream waits on, or nothing.
func (sc *scan) pop() *dir {
	sc.stackMu.Lock()
	defer sc.stackMu.Unlock()
	if sc.heap {
		sc.gated.Add(1) // before the test: see emitter.wake
		for len(sc.stack) > 0 && sc.em.holdsBack(sc.stack[0]) && sc.ctx.Err() == nil {
			sc.gate.Wait()
		}
		sc.gated.Add(-1)
	}
	n := len(sc.stack)
	if n == 0 {
		return nil
	}
	sc.live.Stacked.Store(int32(n - 1))
	if sc.heap {
		return sc.heapPop()
	}
	d := sc.stack[n-1]
	sc.stack[n-1] = nil
	sc.stack = sc.stack[:n-1]
	return d
}

// work visits directories from the shared stack until it is empty. A
// worker that finds the stack empty waits for more a moment (spin), then
// ends: the others' pushes start new ones. One that finds more workers
// working than are allowed (pace.go) leaves, out of live.Running already,
// as does one whose wait ended with every slot taken: work then reports
// true.
func (sc *scan) work(wk *worker) (left bool) {
	for {
		if sc.em != nil {
			sc.em.help() // stream.go: past its budget, the stream goes first
		}
		if sc.leave() {
			return true
		}
		d := sc.pop()
		if d == nil {
			switch sc.spin(wk) {
			case spinWork:
				continue
			case spinOut:
				return true // out of live.Running already
			}
			return false
		}
		sc.visitChain(wk, d, -1)
	}
}

// tryGo runs f on a goroutine of the group if one of the walk's slots is
// free (live.Running, below live.Jobs). f returns errLeft once it took
// itself out of live.Running (leave).
func (sc *scan) tryGo(f func() error) bool {
	if !sc.claimSlot() { // (never over live.Jobs, even for a moment: spin)
		return false
	}
	if sc.g.TryGo(func() error {
		err := f()
		if err == errLeft {
			return nil
		}
		sc.stopped()
		return err
	}) {
		return true
	}
	sc.live.Running.Add(-1)
	return false
}

// stopped takes a worker that stops, having found nothing more to do,
// out of live.Running. Until then it was counted: a worker that pushed
// meanwhile may have left (leave) or started none (tryGo) for what it
// pushed, counting on it; a worker is started for that here. (Both
// counts are sequentially consistent: either this load sees the push, or
// that worker's count saw this one stopped, and stayed.)
func (sc *scan) stopped() {
	if stopHook != nil {
		stopHook()
	}
	sc.live.Running.Add(-1)
	if sc.live.Stacked.Load() > 0 {
		sc.tryGo(sc.workFromStack)
	}
}

// stopHook, when set (by tests), is called as a worker stops, before it
// leaves live.Running.
var stopHook func()

// idle reports whether a directory's subdirectories are worth passing on
// before its files are examined: a slot of the walk is free, and a worker
// started now would find nothing to do but what is passed on from here;
// or the stack is empty, and the next worker to finish what it holds
// would find nothing else (the walk down a chain of directories, each
// with its files, keeps every worker busy only so).
func (sc *scan) idle() bool {
	return mixedPass && (mixedAlways || sc.live.Running.Load() < sc.live.Jobs.Load() || sc.live.Stacked.Load() == 0)
}

// workFromStack is a worker started to take directories from the shared
// stack (errgroup's TryGo) until it is empty.
func (sc *scan) workFromStack() error {
	return sc.workThenPut(sc.w.getWorker())
}

// workThenPut is the end of a worker started by tryGo: it works from the
// stack (work), puts wk back, and returns errLeft if it left.
func (sc *scan) workThenPut(wk *worker) error {
	left := sc.work(wk)
	sc.w.putWorker(wk)
	if left {
		return errLeft
	}
	return nil
}
