package walk

import (
	"math"
	"sync/atomic"

	"github.com/godu-sh/godu/internal/bulk"
	"github.com/godu-sh/godu/internal/sys"
)

// visit reads directory d (opening it relative to its parent, or using fd
// for a root), then walks its subdirectories.
func (r *run) visit(wk *worker, d *dir, fd int) {
	if r.ctx.Err() != nil {
		if d.parent == nil {
			sys.Close(fd)
		}
		r.releaseFd(d.parent)
		if r.em == nil {
			r.finish(d) // the partial tree counts it, as read: itself alone
		}
		return
	}
	wk.current.Store(d)
	wk.dirs.Add(1)
	wk.blocks.Add(atomic.LoadInt64(&d.own.blocks))
	rd := wk.rd
	var b bulk.Batch
	var err error
	if d.parent == nil {
		d.d.OpenFd(fd, r.mode, d.dev)
		b, err = rd.Read(&d.d)
	} else {
		// Out of descriptors, shed those of directories that only wait
		// to open subdirectories, wait a little for other workers to
		// close theirs, and try again. Workers short of descriptors try
		// one at a time (scarce), so that a few descriptors are not
		// shared out a piece to each. After a few tries, the directory
		// is opened by its path, which takes one descriptor where
		// opening it below its parent's takes two, but only where the
		// kernel can refuse every symlink on the way (openBeneath): a
		// directory renamed to a symlink meanwhile never leads outside.
		scarce := false
		for waits := 0; ; waits++ {
			fd := -1
			if path := d.path(); waits > 8 && len(path) < sys.PathMax {
				fd, _ = openBeneath(path, r.mode&bulk.Follow != 0)
			}
			if fd >= 0 {
				d.d.OpenFd(fd, r.mode, d.dev)
				b, err = rd.Read(&d.d)
			} else {
				var pfd int
				if pfd, err = r.useFd(d.parent); err == nil {
					d.d.Open(pfd, d.name, r.mode, d.dev)
					b, err = rd.Read(&d.d)
					r.doneFd(d.parent)
				}
			}
			if !tooManyFiles(err) || d.d.Fd() >= 0 || waits == 1000 {
				break
			}
			if !scarce {
				r.waitFor(d, true)
				r.scarce.Lock()
				scarce = true
			}
			r.shed()
			pause()
		}
		if scarce {
			r.scarce.Unlock()
			r.waitFor(d, false)
		}
	}
	r.releaseFd(d.parent)
	if r.mode&bulk.DirStat != 0 && err == nil && d.parent != nil && d.d.Dev() != r.rootDev {
		// A mount point whose record showed the covered directory (macOS):
		// with -x it is skipped, its own size included.
		d.d.Close()
		d.sub = atomicTotals{}
		d.node = nil
		d.skipped = true
		if r.em != nil {
			d.stream().skipped.Store(true)
			r.em.kick()
		}
		r.finish(d)
		return
	}
	// A directory read whole in one batch hands its subdirectories to the
	// core's subtree walk (take lists them).
	tree := r.tree && err == nil && !b.More
	if tree {
		rd.TreeStart()
	}
	r.take(wk, d, &b, tree)
	if err == nil && b.More {
		err = r.readRest(wk, d)
	}
	if err != nil {
		r.w.fail("read directory", d.path(), err)
		if d.node != nil {
			d.node.Detail.ReadError = true
		}
	}

	subdirs := d.subdirs
	d.subdirs = nil
	var left []*dir // directories the subtree walk left, at any depth
	direct, opening := len(subdirs), len(subdirs)
	if tree && rd.TreeLen() > 0 {
		var n, nleft int
		left, n, nleft = r.walkTree(wk, d)
		direct += n
		opening += nleft
	}
	atomic.AddInt32(&d.pending, int32(direct))
	d.fdRefs.Store(int32(opening) + 1)
	r.releaseFd(d) // our own claim: closes now if there are no subdirectories
	if r.em != nil && d.node != nil {
		r.streamListed(d)
	}
	// The subdirectories go on the walk's shared stack, where any worker
	// takes the next; new workers are started while slots are free
	// (TryGo), and this one goes on with the next itself (work).
	r.push(subdirs)
	r.push(left)
	for i := 1; i < len(subdirs)+len(left) && r.g.TryGo(r.helper); i++ {
	}
	r.finish(d)
}

// take adds one batch of d's entries: folded sums and files to d's totals,
// subdirectories to d's list, or with tree to the list of wk's subtree
// walk. Several workers may take batches of one d.
func (r *run) take(wk *worker, d *dir, b *bulk.Batch, tree bool) {
	own := Totals{Blocks: b.Folded.Blocks, Bytes: b.Folded.Size, Inodes: int64(b.Folded.Count), Time: math.MinInt64}
	if b.Folded.Count > 0 && r.mode&(bulk.ATime|bulk.MTime|bulk.CTime) != 0 {
		own.Time = b.Folded.TMaxSec*1e9 + b.Folded.TMaxNsec
	}
	opts := &r.w.opts
	childDepth := d.depth + 1
	var subdirs []*dir
	var files []*Node
	var linkBuf [64]int32
	links := linkBuf[:0] // records of hard-linked files
	var dpath string
	if opts.Exclude != nil && len(b.Records) > 0 {
		dpath = d.path()
	}
	for i := range b.Records {
		rec := &b.Records[i]
		if opts.Exclude != nil && opts.Exclude(Join(dpath, string(b.Name(rec)))) {
			if opts.Details {
				r.streamLeftOut(d, b.Name(rec), flagPattern)
			}
			continue
		}
		if rec.Errno != 0 {
			r.w.fail("access", Join(d.path(), string(b.Name(rec))),
				danglingErr(d.d.Fd(), string(b.Name(rec)), r.mode&bulk.Follow != 0, rec.Err()))
			if opts.Details {
				r.streamLeftOut(d, b.Name(rec), flagReadError)
			}
			continue
		}
		if opts.OneFileSystem && rec.Dev != r.rootDev {
			if opts.Details {
				r.streamLeftOut(d, b.Name(rec), flagOtherFS)
			}
			continue
		}
		if rec.Flags&bulk.FlagFirmlink != 0 {
			// macOS: a firmlink is a second path into the Data volume,
			// which is counted where it is mounted; counting both would
			// count it twice in a walk of /.
			continue
		}
		if !opts.CountLinks && rec.Type != bulk.Directory && rec.Nlink > 1 && !r.linksNow {
			links = append(links, int32(i))
			continue
		}
		if r.w.seen(rec) {
			wk.links.Add(1)
			continue
		}
		t := entryTotals(rec)
		if rec.Type == bulk.Directory {
			if d.cycle(rec) {
				// A directory that contains itself (a bind mount of an
				// ancestor): du skips it silently, and counts nothing.
				continue
			}
			if tree && wk.rd.TreeAdd(rec, b.Name(rec)) {
				continue
			}
			c := newDir(d, string(b.Name(rec)), childDepth, rec)
			if r.reported(childDepth) {
				c.node = &Node{Name: c.name, IsDir: true, Type: bulk.Directory, Dev: c.dev, Ino: c.ino}
				if opts.Details {
					c.node.Detail = Detail{Self: t, Dev: rec.Dev}
				}
				if r.em != nil {
					r.streamSubdir(d, c)
				}
			}
			subdirs = append(subdirs, c)
			continue
		}
		own.Add(t)
		switch {
		case !opts.ListFiles || d.node == nil || !r.reported(childDepth):
		case r.em != nil:
			r.streamFile(d, b.Name(rec), t, fileFlags(rec))
		default:
			files = append(files, &Node{Name: string(b.Name(rec)), Totals: t, Own: t, Type: rec.Type, Dev: rec.Dev, Ino: rec.Ino})
		}
	}
	switch {
	case len(links) == 0:
	case r.em != nil:
		r.streamLinks(d, b, links)
	default:
		r.claim(wk, d, b, links)
	}
	d.sub.add(own)
	d.own.add(own)
	wk.files.Add(own.Inodes)
	wk.blocks.Add(own.Blocks)
	if len(subdirs) == 0 && len(files) == 0 {
		return
	}
	d.mu.Lock()
	d.subdirs = append(d.subdirs, subdirs...)
	if len(files) > 0 {
		d.node.Children = append(d.node.Children, files...)
	}
	d.mu.Unlock()
	for _, f := range files {
		if r.w.opts.OnNode != nil {
			r.w.emit(Join(d.path(), f.Name), f)
		}
	}
}

// finish drops one claim on d's completion; the last one completes d and
// passes its totals to its parent.
func (r *run) finish(d *dir) {
	for d != nil && atomic.AddInt32(&d.pending, -1) == 0 {
		t := d.sub.load()
		if d.node != nil {
			d.node.Totals, d.node.Own = t, d.own.load()
			d.node.sortChildren()
			if r.w.opts.OnNode != nil && r.ctx.Err() == nil {
				r.w.emit(d.path(), d.node)
			}
		}
		if r.em != nil {
			r.streamComplete(d)
		}
		p := d.parent
		if p == nil {
			return
		}
		p.sub.add(t)
		if d.node != nil && p.node != nil && r.em == nil {
			p.mu.Lock()
			p.node.Children = append(p.node.Children, d.node)
			p.mu.Unlock()
		}
		d = p
	}
}

// danglingErr is the error to report for an entry that could not be
// examined: following symlinks, a symlink whose target is missing is
// reported as du reports it, without a system error (nil).
func danglingErr(dirfd int, name string, follow bool, err error) error {
	if !follow || err != sys.ENOENT {
		return err
	}
	if _, lerr := bulk.Lstat(dirfd, name, 0); lerr == nil {
		return nil
	}
	return err
}
