package walk

import (
	"sync/atomic"
	"time"

	"github.com/godu-sh/godu/internal/bulk"
)

// counters are the counts behind Stats and Current. Each worker keeps its
// own, on a cache line of its own, so that counting costs no cross-core
// traffic; Stats sums them.
type counters struct {
	dirs, files, links, blocks atomic.Int64
	current                    atomic.Pointer[dir] // a directory being read
	_                          [24]byte
}

// worker is what one goroutine of a walk holds while it works: a reader
// (buffers for the kernel loop) and its counters.
type worker struct {
	rd *bulk.Reader
	counters
	anc ancestors // the directory read and those above it (cycle checks)
	// Scratch of readSubtrees. nexts is its list of the directories a
	// walk handed over open; handed, those this worker visits once its
	// chain ends (visitChain).
	nexts, handed []handed
	kids          []int32
	leftKids      []int32
	tdirs         []*dir
	sub           []Totals
	// Scratch of dirsFirst.
	dirRecs []bulk.Record
	// Scratch of streamTreeLinks.
	holder []*dir
	under  []int32
	// cursor: a directory whose descriptor the worker keeps open, to
	// reopen those near it from (near.go); set by the worker alone, shed
	// by any (shedCursors).
	cursor atomic.Pointer[dir]
	// When the worker's goroutine last rescheduled (yield), and when it
	// last timed a core call (paced).
	yielded, sampled time.Duration
}

// getWorker takes an idle worker, or makes one.
func (w *Walker) getWorker() *worker {
	w.workMu.Lock()
	defer w.workMu.Unlock()
	if n := len(w.idle); n > 0 {
		wk := w.idle[n-1]
		w.idle = w.idle[:n-1]
		return wk
	}
	wk := &worker{rd: bulk.NewReader()}
	w.all = append(w.all, wk)
	return wk
}

func (w *Walker) putWorker(wk *worker) {
	wk.dropCursor()
	wk.current.Store(nil)
	wk.rd.PutTree()
	w.workMu.Lock()
	w.idle = append(w.idle, wk)
	w.workMu.Unlock()
}

// Stats are a Walker's counts so far.
type Stats struct {
	Dirs, Files  int64 // entries counted
	LinksSkipped int64 // further links to files counted already
	Blocks       int64 // allocated 512-byte blocks counted
	Errors       int64
}

// Stats returns the counts so far; safe to call during a walk.
func (w *Walker) Stats() Stats {
	st := Stats{Errors: w.nerrs.Load()}
	add := func(c *counters) {
		st.Dirs += c.dirs.Load()
		st.Files += c.files.Load()
		st.LinksSkipped += c.links.Load()
		st.Blocks += c.blocks.Load()
	}
	add(&w.after)
	w.workMu.Lock()
	for _, wk := range w.all {
		add(&wk.counters)
	}
	w.workMu.Unlock()
	return st
}

// Current is the path of a directory being read now, or "" (for progress
// displays; safe to call during a walk).
func (w *Walker) Current() string {
	w.workMu.Lock()
	defer w.workMu.Unlock()
	for _, wk := range w.all {
		if d := wk.current.Load(); d != nil {
			return d.path()
		}
	}
	return ""
}

func (w *Walker) fail(op, path string, err error) {
	w.nerrs.Add(1)
	if w.opts.OnError == nil {
		return
	}
	w.errMu.Lock()
	defer w.errMu.Unlock()
	w.opts.OnError(&Error{Op: op, Path: path, Err: err})
}
