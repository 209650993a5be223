package walk

import (
	"sync"

	"github.com/godu-sh/godu/internal/bulk"
)

// dir is a directory being walked.
type dir struct {
	parent *dir
	name   string
	depth  int
	dev    uint64 // st_dev and st_ino from the directory's own record
	ino    uint64
	// skipped: a mount point left out by -x after opening it (macOS).
	skipped bool
	fd      descriptor // reads d; then opens its subdirectories (fd.go)
	node    *Node      // nil when not reported
	st      *streamDir // with Options.Stream: kept for the emitter

	sub atomicTotals // the subtree so far
	own atomicTotals // the directory and its files
	// pending counts what d's completion waits for: its own reading and
	// its unfinished subdirectories (atomic; see scan.partDone).
	pending int32

	mu      sync.Mutex
	subdirs []*dir
}

func (d *dir) path() string {
	if d.parent == nil {
		return d.name
	}
	return Join(d.parent.path(), d.name)
}

func newDir(parent *dir, name string, depth int, rec *bulk.Record) *dir {
	d := &dir{parent: parent, name: name, depth: depth, dev: rec.Dev, ino: rec.Ino}
	t := entryTotals(rec)
	d.sub.set(t)
	d.own.set(t)
	d.pending = 1
	return d
}

// cycle reports whether the directory rec, found in d, is d or one of
// its ancestors.
func (d *dir) cycle(rec *bulk.Record) bool {
	for a := d; a != nil; a = a.parent {
		if a.ino == rec.Ino && a.dev == rec.Dev {
			return true
		}
	}
	return false
}
