package walk

import (
	"context"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/godu-sh/godu/internal/bulk"
)

// run is the state of one Walk call.
type run struct {
	w       *Walker
	ctx     context.Context
	g       *errgroup.Group
	rootDev uint64
	mode    bulk.Mode
	follow  bool // the operand is followed if a symlink

	linkMu sync.Mutex
	links  linkTable // hard-linked files met in this walk

	stackMu sync.Mutex
	stack   []*dir // subdirectories found and not yet taken by a worker

	// linksNow: only the operand is reported (du -s), so which of a
	// file's links is counted changes no figure: the first met is, at
	// once, instead of the first in traversal order after the walk.
	linksNow bool

	scarce  sync.Mutex // held by the worker retrying an open out of descriptors
	waitMu  sync.Mutex
	waiting []*dir // directories whose opening waits for a descriptor

	// tree: subtrees are read by the core's subtree walk
	// (bulk.Reader.Tree) with treeMode.
	tree     bool
	treeMode bulk.Mode

	em *emitter // with Options.Stream
}

func (r *run) reported(depth int) bool {
	return r.w.opts.MaxDepth < 0 || depth <= r.w.opts.MaxDepth
}

// push puts subdirectories on the shared stack, the first by name on top,
// so that the walk goes depth first in name order where it can.
func (r *run) push(ds []*dir) {
	if len(ds) == 0 {
		return
	}
	r.stackMu.Lock()
	for i := len(ds) - 1; i >= 0; i-- {
		if r.em != nil {
			r.heapPush(ds[i]) // order.go
		} else {
			r.stack = append(r.stack, ds[i])
		}
	}
	r.stackMu.Unlock()
}

func (r *run) pop() *dir {
	r.stackMu.Lock()
	defer r.stackMu.Unlock()
	n := len(r.stack)
	if n == 0 {
		return nil
	}
	if r.em != nil {
		return r.heapPop()
	}
	d := r.stack[n-1]
	r.stack[n-1] = nil
	r.stack = r.stack[:n-1]
	return d
}

// work visits directories from the shared stack until it is empty. A
// worker that finds the stack empty ends: the others' pushes start new
// ones.
func (r *run) work(wk *worker) {
	for {
		if r.em != nil {
			r.em.help() // stream.go: past its budget, the stream goes first
		}
		d := r.pop()
		if d == nil {
			return
		}
		r.visit(wk, d, -1)
	}
}

func (r *run) helper() error {
	wk := r.w.getWorker()
	r.work(wk)
	r.w.putWorker(wk)
	return nil
}
