package walk

import (
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/godu-sh/godu/internal/bulk"
)

// dir is a directory being walked. (Its fields are ordered so that it
// takes 288 bytes, a size class below 320: a directory of N
// subdirectories holds N of them while they wait.)
type dir struct {
	parent *dir
	jump   *dir // an ancestor to climb to in one step (jumpOf, order.go)
	name   string
	depth  int
	dev    uint64 // st_dev and st_ino from the directory's own record
	ino    uint64
	// fd reads d, then opens its subdirectories (fd.go): made when d is
	// read (visit), or stands in for a directory a subtree walk read, so
	// that a directory waiting to be read costs no descriptor's room.
	fd   *descriptor
	node *Node // nil when not reported
	// top: of a directory not reported, the highest such on its path
	// (right below a reported one), which holds the links found below it
	// for the emitter (streamLink); plen: the length of d's path. Both set
	// when d is made (inherit).
	top  *dir
	plen int
	// xpath: with Options.Exclude, d's path as matched when d was found,
	// until d's entries are matched (their paths built from it, where
	// building d's from its ancestors' names costs O(depth) in pointers).
	xpath string
	st    *streamDir // with Options.Stream: its lists, made when first needed

	sub atomicTotals // the subtree so far
	own atomicTotals // the directory and its files
	// pending counts what d's completion waits for: its own reading and
	// its unfinished subdirectories (atomic; see scan.partDone).
	pending int32
	// With Options.Stream, what the emitter asks of a directory before it
	// enters it: whether its children are all known (listed) and its
	// figures final (complete), whether it is left out after all (left:
	// a mount point under -x, or in an ordered walk a later path to a
	// directory counted before, or below one), and in an ordered walk
	// whether the emitter has decided it. A directory waiting to be read
	// costs no streamDir.
	listed, complete, left atomic.Bool
	decided                bool
	// skipped: a mount point left out by -x after opening it (macOS).
	skipped bool
	entered bool // (errs)
	empty   bool // the operand, read whole: it has no entry

	mu      sync.Mutex
	subdirs []*dir
	// With Options.Stream (scan.fail): d's own errors until the emitter
	// enters d (entered), and those to report before d's line.
	errs []Error
	late []Error
	// openErr: a subtree walk failed to open d with it; d is not opened
	// again (du tries once), the error is reported as opening's.
	openErr syscall.Errno
}

// path is d's path as du prints it, Join's of its names from the root,
// built in one allocation: O(depth), where joining parent's path first at
// every level cost O(depth²) bytes and a stack as deep as the tree.
func (d *dir) path() string {
	n := 0
	for a := d; a != nil; a = a.parent {
		n += len(a.name) + 1
	}
	b := make([]byte, n)
	i := n
	for a := d; a.parent != nil; a = a.parent {
		i -= len(a.name)
		copy(b[i:], a.name)
		i--
		b[i] = '/'
	}
	root := d
	for root.parent != nil {
		root = root.parent
	}
	// Join adds no '/' after a name that ends with one (an operand).
	if root != d && len(root.name) > 0 && root.name[len(root.name)-1] == '/' {
		i++
	}
	i -= len(root.name)
	copy(b[i:], root.name)
	return string(b[i:])
}

func newDir(parent *dir, name string, depth int, rec *bulk.Record) *dir {
	d := &dir{parent: parent, name: name, depth: depth, dev: rec.Dev, ino: rec.Ino}
	d.inherit()
	t := entryTotals(rec)
	d.sub.set(t)
	d.own.set(t)
	d.pending = 1
	return d
}

// inherit sets d.jump, d.top and d.plen from its parent's: whether the
// parent is reported (has its Node) is settled by the time its
// subdirectories are made.
func (d *dir) inherit() {
	p := d.parent
	d.jump = jumpOf(p)
	if p == nil || p.node != nil {
		d.top = d
	} else {
		d.top = p.top
	}
	d.plen = len(d.name)
	if p != nil {
		d.plen += p.plen + 1
		if p.parent == nil && strings.HasSuffix(p.name, "/") {
			d.plen-- // Join adds no slash after one
		}
	}
}
