package walk

import (
	"sync"

	"github.com/godu-sh/godu/internal/bulk"
)

// readRest reads the rest of a directory that did not fit in one batch.
// Where the system can list names apart from examining them, the listing
// stays here and the batches of names are examined by other workers (examiners), so
// a huge directory does not serialise on one core.
func (sc *scan) readRest(wk *worker, d *dir) error {
	rd := wk.rd
	if !bulk.CanSplit {
		for {
			b, err := rd.Read(&d.fd.Dir)
			sc.addBatch(wk, d, &b, false)
			if err != nil || !b.More {
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
	queue := make(chan listed, sc.w.opts.Jobs)
	examine := func(l listed) {
		b := l.wk.rd.Stat(fd, d.dev, l.b, sc.mode)
		sc.addBatch(l.wk, d, &b, false)
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
	var err error
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
	return err
}
