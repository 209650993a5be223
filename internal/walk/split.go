package walk

import (
	"sync"

	"github.com/godu-sh/godu/internal/bulk"
)

// readRest reads the rest of a directory that did not fit in one batch.
// Where the system can list names apart from examining them, the listing
// stays here and the batches of names are examined by helper workers, so
// a huge directory does not serialise on one core.
func (r *run) readRest(wk *worker, d *dir) error {
	rd := wk.rd
	if !bulk.CanSplit {
		for {
			b, err := rd.Read(&d.fd.Dir)
			r.take(wk, d, &b, false)
			if err != nil || !b.More {
				return err
			}
		}
	}
	d.fd.SetMode(r.mode | bulk.NamesOnly)
	fd := d.fd.Fd()
	// The listing stays here; listed batches go to a short queue that
	// helpers drain, each taking the next batch as soon as it is done, so
	// listing never waits on one batch's statx calls. Helpers are started
	// whenever a slot is free; with the queue full, this worker examines
	// a batch itself.
	type listed struct {
		wk *worker // holds the batch's buffers
		b  bulk.Batch
	}
	queue := make(chan listed, r.w.opts.Jobs)
	examine := func(l listed) {
		b := l.wk.rd.Stat(fd, d.dev, l.b, r.mode)
		r.take(l.wk, d, &b, false)
		r.w.putWorker(l.wk)
	}
	var helpers sync.WaitGroup
	helper := func() error {
		defer helpers.Done()
		for l := range queue {
			examine(l)
		}
		return nil
	}
	nhelpers := 0
	var err error
	for more := true; more && err == nil; {
		var names bulk.Batch
		names, err = rd.Read(&d.fd.Dir)
		more = names.More
		lw := r.w.getWorker()
		l := listed{lw, lw.rd.Adopt(rd, names)}
		if nhelpers < r.w.opts.Jobs-1 {
			helpers.Add(1)
			if r.g.TryGo(helper) {
				nhelpers++
			} else {
				helpers.Done()
			}
		}
		select {
		case queue <- l:
		default:
			examine(l)
		}
	}
	close(queue)
	for l := range queue { // help drain, then wait for the helpers
		examine(l)
	}
	helpers.Wait()
	return err
}
