package walk

import (
	"runtime"
	"sync/atomic"

	"github.com/godu-sh/godu/internal/bulk"
	"github.com/godu-sh/godu/internal/inodeset"
	"github.com/godu-sh/godu/internal/sys"
)

// visitHook, when set (by tests), is called as a worker starts to read
// a directory.
var visitHook func(sc *scan, d *dir)

// maxHanded bounds the directories a worker holds open for after its
// chain (visit).
const maxHanded = 2

// visitChain visits d (see visit), then the directory each visit hands
// on, on this worker, one after the other: a chain of them (each a subtree
// walk's last) may be as deep as the tree; then those a walk with helpers
// handed over beside it that no worker was started for (wk.handed).
func (sc *scan) visitChain(wk *worker, d *dir, fd int) {
	for {
		for d != nil {
			d, fd = sc.visit(wk, d, fd)
		}
		n := len(wk.handed)
		if n == 0 {
			return
		}
		h := wk.handed[n-1]
		wk.handed = wk.handed[:n-1]
		d, fd = h.d, h.fd
	}
}

// visit reads directory d (opening it relative to its parent, or using fd
// for a root, or for a directory a subtree walk opened and left: fd >= 0),
// then walks its subdirectories. It returns the directory to visit next,
// and its descriptor, when its subtree walk ended at one it opened
// (readSubtrees): the caller visits it at once (visitChain), so that
// each worker holds at most one such descriptor, for a moment; from a
// walk with helpers that handed over several, up to maxHanded more,
// until its chain ends.
func (sc *scan) visit(wk *worker, d *dir, fd int) (next *dir, nextFd int) {
	if sc.ctx.Err() != nil {
		if fd >= 0 {
			sys.Close(fd)
		}
		sc.releaseFd(d.parent)
		if sc.em == nil {
			sc.partDone(d) // the partial tree counts it, as read: itself alone
		}
		return nil, -1
	}
	if sc.ordered && d.left.Load() {
		// Not the first path to its directory: du never reads it.
		if fd >= 0 && d.parent != nil {
			sys.Close(fd)
		}
		sc.releaseFd(d.parent)
		sc.streamListed(d)
		sc.partDone(d)
		return nil, -1
	}
	if d.fd == nil { // (the operand's is made before)
		d.fd = new(descriptor)
	}
	sc.yield(wk)
	if visitHook != nil {
		visitHook(sc, d)
	}
	wk.current.Store(d)
	wk.dirs.Add(1)
	wk.blocks.Add(atomic.LoadInt64(&d.own.blocks))
	rd := wk.rd
	var b bulk.Batch
	var err error
	// mixed: a worker is idle; d is listed first and examined after, so
	// that its subdirectories may go to that worker before its files are
	// examined (passMixed).
	mixed := d.parent != nil && bulk.CanSplit && sc.mode&bulk.DirStat == 0 && sc.idle()
	listMode := sc.mode
	if mixed {
		listMode |= bulk.NamesOnly
	}
	if d.parent == nil && bulk.CanSplit {
		// The operand is listed first and examined after: a first
		// batch of many entries is then examined by two workers at
		// once, where the walk has no other work for the second yet.
		d.fd.OpenFd(fd, sc.mode|bulk.NamesOnly, d.dev)
		b, err = rd.Read(&d.fd.Dir)
		d.fd.SetMode(sc.mode)
		b = sc.statListed(wk, d, b)
	} else if d.parent == nil || fd >= 0 {
		// An operand, or a directory its parent's subtree walk opened
		// and handed on (rewound), which is read from that descriptor
		// as if opened here.
		d.fd.OpenFd(fd, listMode, d.dev)
		b, err = rd.Read(&d.fd.Dir)
	} else if d.openErr != 0 {
		err = d.openErr // a subtree walk tried: du tries once
	} else {
		// d opens below its parent's descriptor. Out of descriptors,
		// openScarce tries again; after a few tries d is opened by its
		// path, which takes one descriptor where opening it below its
		// parent's takes two, but only where the kernel can refuse
		// every symlink on the way (openBeneath): a directory renamed to
		// a symlink meanwhile never leads outside.
		err = sc.openScarce(d, func(waits int) (bool, error) {
			fd := -1
			if waits > 8 || sc.byPathFirst.Load() && (waits > 0 || sc.pathFirst(d)) {
				if path := d.path(); len(path) < sys.PathMax {
					scarcity.byPath.Add(1)
					fd, _ = openBeneath(path, sc.mode&bulk.Follow != 0)
					if fd >= 0 && !sameDir(fd, d) { // renamed meanwhile: below the parent, then
						sys.Close(fd)
						fd = -1
					}
					if fd >= 0 {
						sc.byPathFirst.Store(true)
					}
				}
			}
			if fd >= 0 {
				d.fd.OpenFd(fd, listMode, d.dev)
				b, err = rd.Read(&d.fd.Dir)
			} else {
				var pfd int
				if pfd, err = sc.useFd(wk, d.parent); err == nil {
					d.fd.Open(pfd, d.name, listMode, d.dev)
					b, err = rd.Read(&d.fd.Dir)
					d.parent.fd.done()
					if waits == 0 && d.fd.Fd() >= 0 {
						sc.byPathFirst.Store(false) // descriptors to be had again
					}
				}
			}
			return d.fd.Fd() >= 0, err
		})
	}
	sc.keep(wk, d.parent)
	if sc.mode&bulk.DirStat != 0 && err == nil && d.parent != nil && d.fd.Dev() != sc.rootDev {
		// A mount point whose record showed the covered directory (macOS):
		// with -x it is skipped, its own size included.
		d.fd.Close()
		d.sub = atomicTotals{}
		d.node = nil
		d.skipped = true
		if sc.em != nil {
			d.left.Store(true)
			sc.em.kick()
		}
		sc.partDone(d)
		return nil, -1
	}
	// Subdirectories are passed on (pass) as soon as they are found, while
	// d is still read: its descriptor holds the visit's own claim and use
	// until the end, so that neither their opening relative to it nor a
	// walk short of descriptors closes it meanwhile.
	d.fd.hold(1)
	d.fd.begin()
	if mixed && d.fd.Fd() >= 0 {
		d.fd.SetMode(sc.mode)
		b = sc.passMixed(wk, d, b)
	}
	if d.parent == nil && err == nil && len(b.Records) == 0 && !b.More {
		d.empty = true
	}
	// A directory read whole in one batch hands its subdirectories to the
	// core's subtree walk (addBatch lists them).
	toSubtree := sc.subtrees && err == nil && !b.More && !sc.share(&b)
	if toSubtree {
		rd.TreeStart()
	}
	sc.addBatch(wk, d, &b, toSubtree)
	if err == nil && b.More {
		sc.passSubdirs(d) // before the rest is read
		err = sc.readRest(wk, d)
	}
	d.xpath = "" // every entry of d matched
	if err != nil {
		sc.fail(d, "read directory", d.path(), err)
		if d.node != nil && d.node.Detail != nil {
			d.node.Detail.ReadError = true
		}
	}

	subdirs := d.subdirs
	d.subdirs = nil
	var left []*dir    // directories the subtree walk left, at any depth
	var nexts []handed // and those it handed over open, but next
	nextFd = -1
	direct, opening := len(subdirs), len(subdirs)
	if toSubtree && rd.TreeLen() > 0 {
		var n, nleft int
		left, nexts, n, nleft = sc.readSubtrees(wk, d, true)
		if len(nexts) > 0 {
			next, nextFd = nexts[0].d, nexts[0].fd
			nexts = nexts[1:]
		}
		direct += n
		opening += nleft
	}
	left = append(left, subdirs...)
	sc.count(d, direct, opening)
	d.fd.done()
	sc.keep(wk, d) // the visit's claim: closes now (or is wk's cursor) if no subdirectory is left to open
	if sc.em != nil && d.node != nil {
		sc.streamListed(d)
	}
	// The subdirectories go on the walk's shared stack, where any worker
	// takes the next; new workers are started while slots are free
	// (TryGo), and this one goes on with the next itself (work).
	sc.push(left)
	n := len(left)
	if next != nil {
		n++ // this worker goes on with next
	}
	for i, k := 1, sc.toStart(n); i < k && sc.tryGo(sc.workFromStack); i++ {
	}
	// More than one handed over open (a walk with helpers): each on a
	// worker started for it, or on this one after its chain; past
	// maxHanded waiting so, closed and on the stack, to be opened again
	// below its parent (whose descriptor its claim keeps): held open, a
	// chain of such walks would hold a descriptor per level.
	for _, h := range nexts {
		switch {
		case sc.visitOn(h.d, h.fd):
		case len(wk.handed) < maxHanded:
			wk.handed = append(wk.handed, h)
		default:
			sys.Close(h.fd)
			sc.push([]*dir{h.d})
		}
	}
	sc.partDone(d)
	return next, nextFd
}

// count counts, in d's pending parts, direct more of its subdirectories
// (or directories standing for them), and in its descriptor's claims
// opening more that will open relative to it: before they are pushed.
func (sc *scan) count(d *dir, direct, opening int) {
	atomic.AddInt32(&d.pending, int32(direct))
	d.fd.claims.Add(int32(opening))
}

// pass hands ds, found below d while d is still read, on to the shared
// stack (direct and opening as for count), starting workers for them
// while slots are free: this one goes on reading d.
func (sc *scan) pass(d *dir, ds []*dir, direct, opening int) {
	sc.count(d, direct, opening)
	sc.push(ds)
	started := false
	for range sc.toStart(len(ds)) {
		if !sc.tryGo(sc.workFromStack) {
			break
		}
		started = true
	}
	if started {
		runtime.Gosched()
	}
}

// passSubdirs passes on the subdirectories addBatch listed in d so far.
func (sc *scan) passSubdirs(d *dir) {
	d.mu.Lock()
	ds := d.subdirs
	d.subdirs = nil
	d.mu.Unlock()
	if len(ds) > 0 {
		sc.pass(d, ds, len(ds), len(ds))
	}
}

// addBatch adds one batch of d's entries: folded sums and files to d's totals,
// subdirectories to d's list, or with toSubtree to the list of wk's
// subtree walk. Several workers may add batches of one d.
func (sc *scan) addBatch(wk *worker, d *dir, b *bulk.Batch, toSubtree bool) {
	own := Totals{Blocks: b.Folded.Blocks, Bytes: b.Folded.Size, Inodes: int64(b.Folded.Count), Time: NoTime}
	if b.Folded.Count > 0 && sc.mode&(bulk.ATime|bulk.MTime|bulk.CTime) != 0 {
		own.Time = b.Folded.TMaxSec*1e9 + b.Folded.TMaxNsec
	}
	opts := &sc.w.opts
	childDepth := d.depth + 1
	var subdirs []*dir
	var files []*Node
	var linkBuf [64]int32
	links := linkBuf[:0] // records of hard-linked files
	var dpath, epath string
	if opts.Exclude != nil && len(b.Records) > 0 {
		if dpath = d.xpath; dpath == "" {
			dpath = d.path()
		}
	}
	for i := range b.Records {
		rec := &b.Records[i]
		if opts.Exclude != nil {
			if epath = Join(dpath, string(b.Name(rec))); opts.Exclude(epath) {
				if opts.Details {
					sc.streamLeftOut(d, b.Name(rec), flagPattern)
				}
				continue
			}
		}
		if sc.pathMax > 0 && d.plen+1+len(b.Name(rec)) >= sc.pathMax {
			// Following every symlink, du names each entry by its
			// whole path, which the system resolves only below PathMax.
			rec.Errno = int32(sys.ENAMETOOLONG)
		}
		if rec.Errno != 0 {
			err := danglingErr(d.fd.Fd(), string(b.Name(rec)), sc.mode&bulk.Follow != 0, rec.Err())
			path := Join(d.path(), string(b.Name(rec)))
			if sc.em != nil && d.node != nil && (sc.ordered || sc.reported(childDepth)) {
				// Reported in du's order, among d's entries.
				sc.streamError(d, b.Name(rec), Error{Op: "access", Path: path, Err: err})
			} else {
				sc.fail(d, "access", path, err)
			}
			if opts.Details {
				sc.streamLeftOut(d, b.Name(rec), flagReadError)
			}
			continue
		}
		if opts.OneFileSystem && rec.Dev != sc.rootDev {
			if opts.Details {
				sc.streamLeftOut(d, b.Name(rec), flagOtherFS)
			}
			continue
		}
		if rec.Flags&bulk.FlagFirmlink != 0 {
			// macOS: a firmlink is a second path into the Data volume,
			// which is counted where it is mounted; counting both would
			// count it twice in a walk of /.
			continue
		}
		switch {
		case sc.ordered && rec.Type != bulk.Directory:
			// Any file may be reached again by another path: charged
			// as a hard link is, at its first path in du's order.
			links = append(links, int32(i))
			continue
		case sc.ordered:
			// A directory counted at a path decided before (earlier in
			// du's order) is not read again; one not yet counted is
			// read, and counted if the emitter decides it is first.
			if sc.w.setUsed.Load() && sc.w.set.Contains(inodeset.Key{Dev: rec.Dev, Ino: rec.Ino}) {
				wk.links.Add(1)
				continue
			}
		case !opts.CountLinks && rec.Type != bulk.Directory && rec.Nlink > 1 && !sc.linksNow:
			links = append(links, int32(i))
			continue
		case sc.w.seen(rec):
			wk.links.Add(1)
			continue
		}
		t := entryTotals(rec)
		if rec.Type == bulk.Directory {
			if wk.anc.at(d).Has(rec.Dev, rec.Ino) {
				// A directory that contains itself (a bind mount of an
				// ancestor): du skips it silently, and counts nothing.
				continue
			}
			if toSubtree && wk.rd.TreeAdd(rec, b.Name(rec)) {
				continue
			}
			c := newDir(d, string(b.Name(rec)), childDepth, rec)
			c.xpath = epath
			if sc.kept(childDepth) {
				c.node = &Node{Name: c.name, IsDir: true, Type: bulk.Directory, Dev: c.dev, Ino: c.ino}
				if opts.Details {
					c.node.Detail = &Detail{Self: t, Dev: rec.Dev}
				}
				if sc.em != nil && !sc.streamSubdir(d, c) {
					continue // d is not counted: neither is c
				}
			}
			subdirs = append(subdirs, c)
			continue
		}
		own.Add(t)
		switch {
		case !opts.ListFiles || d.node == nil || !sc.reported(childDepth):
		case sc.em != nil:
			sc.streamFile(d, b.Name(rec), t, fileFlags(rec), rec)
		default:
			files = append(files, &Node{Name: string(b.Name(rec)), Totals: t, Own: t, Type: rec.Type, Dev: rec.Dev, Ino: rec.Ino})
		}
	}
	switch {
	case len(links) == 0:
	case sc.em != nil:
		sc.streamLinks(d, b, links)
	default:
		sc.claim(wk, d, b, links)
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
		if sc.w.opts.OnNode != nil {
			sc.w.emit(Join(d.path(), f.Name), f)
		}
	}
}

// partDone marks one part of d done (its own reading, or a subdirectory
// complete); the last completes d and passes its totals to its parent.
func (sc *scan) partDone(d *dir) {
	for d != nil && atomic.AddInt32(&d.pending, -1) == 0 {
		t := d.sub.load()
		dropped := sc.ordered && d.left.Load()
		if dropped {
			t = Totals{Time: NoTime} // not the first path to its directory
		}
		if d.node != nil && !dropped {
			d.node.Totals, d.node.Own = t, d.own.load()
			d.node.sortChildren()
			// The operand's Node waits for the hard links charged once
			// the walk is over (Walk emits it).
			if sc.w.opts.OnNode != nil && sc.ctx.Err() == nil && (d.parent != nil || sc.em != nil) {
				sc.w.emit(d.path(), d.node)
			}
		}
		if sc.em != nil {
			if dropped {
				sc.em.release(d)
			}
			sc.streamComplete(d)
		}
		p := d.parent
		if p == nil {
			return
		}
		p.sub.add(t)
		if d.node != nil && p.node != nil && sc.em == nil {
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
