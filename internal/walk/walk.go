// Package walk sums disk usage over file trees in parallel, with GNU du's
// rules: every entry's allocated blocks count toward each directory above
// it, a hard-linked file counts once, and one error never stops the rest.
//
// A Walker reads each directory with internal/bulk (one call into the
// kernel loop per directory) and recurses with goroutines bounded by an
// errgroup: a worker that finds subdirectories puts them on the walk's
// shared stack, starts new workers while slots are free (TryGo), and takes
// the next directory from the stack itself, so the limit bounds threads
// and open descriptors, a full pool can never deadlock, and no found
// directory waits behind a busy worker while another is idle.
// A directory too large for one batch is listed by its worker while other
// workers examine its entries. Totals flow bottom-up: a directory is
// complete when its own entries and all its subdirectories are.
//
// Directories are opened relative to their parent's descriptor, never by a
// path from the root, so depth is unlimited; a parent's descriptor stays
// open only until its last subdirectory has been opened. Out of
// descriptors (EMFILE), the descriptors of directories that only wait for
// their subdirectories to be opened are closed, and reopened on demand
// from the nearest open ancestor.
//
// The result of a walk is a tree of Nodes holding the entries the caller
// asked to see (directories down to Options.MaxDepth, files too with
// Options.ListFiles), children sorted by name. Errors go to
// Options.OnError as *Error values.
package walk

import (
	"context"
	"math"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/errgroup"
	"golang.org/x/sys/unix"

	"github.com/godu-sh/godu/internal/bulk"
	"github.com/godu-sh/godu/internal/inodeset"
)

// Options configures a Walker.
type Options struct {
	// Jobs bounds the goroutines (and so OS threads and open directories)
	// working at once. <= 0 means DefaultJobs().
	Jobs int
	// CountLinks counts every link to a file (du -l).
	CountLinks bool
	// OneFileSystem skips entries whose device differs from their
	// operand's (du -x); operands themselves are never skipped.
	OneFileSystem bool
	// HashAll remembers every (device, inode), directories included, so
	// that an operand repeated or nested in another counts once (GNU du
	// does this whenever it has several operands).
	HashAll bool
	// ListFiles reports files as well as directories (du -a).
	ListFiles bool
	// MaxDepth is the deepest level reported (the operand is level 0);
	// negative means no limit. Deeper entries still count in totals.
	MaxDepth int
	// FollowOperands follows an operand that is a symlink (du -H, -D).
	FollowOperands bool
	// FollowAll follows every symlink (du -L): a symlink counts as its
	// target, and every (device, inode) is remembered, so that a target
	// reached twice counts once and a cycle ends where it closes.
	FollowAll bool
	// Time, when bulk.ATime, MTime or CTime, puts in each Totals the
	// latest such time of the subtree (du --time).
	Time bulk.Mode
	// Exclude, if set, is asked about every entry's path as du prints it,
	// operands included; a matched entry is neither counted nor entered.
	Exclude func(path string) bool
	// OnError receives every error met, as an *Error. Calls are
	// serialised. Nil discards errors (Walker.Errors still counts them).
	OnError func(*Error)
	// OnNode, if set, is called once for each reported Node as soon as its
	// subtree is complete (children before parents, in no set order
	// among siblings). Calls are serialised. Hard-linked files are not in
	// these totals yet: each is charged, once, to the first of its links
	// in traversal order when the walk is over, and is in the tree Walk
	// returns.
	OnNode func(path string, n *Node)
}

// DefaultJobs is the worker count used when Options.Jobs is not set,
// chosen per system by measurement: on Linux three workers per CPU (at most
// 32), on macOS one per CPU between 4 and 8.
func DefaultJobs() int {
	n := runtime.NumCPU() * jobsPerCPU
	if n < minDefaultJobs {
		n = minDefaultJobs
	}
	if n > maxDefaultJobs {
		n = maxDefaultJobs
	}
	return n
}

// Totals is the usage of an entry or a subtree.
type Totals struct {
	Blocks int64 // allocated size, in 512-byte units
	Bytes  int64 // apparent size: st_size of regular files and symlinks
	Inodes int64 // number of entries, the directory itself included
	// Time is the latest time of the subtree chosen by Options.Time, in
	// nanoseconds since the epoch (math.MinInt64 when none).
	Time int64
}

// Add adds u to t: sums, and the later time.
func (t *Totals) Add(u Totals) {
	t.Blocks += u.Blocks
	t.Bytes += u.Bytes
	t.Inodes += u.Inodes
	t.Time = max(t.Time, u.Time)
}

// Node is one reported entry: an operand, a directory down to MaxDepth, or
// (with ListFiles) a file.
type Node struct {
	// Name is the operand as given for a root, the entry's name otherwise.
	Name  string
	IsDir bool
	// Totals covers the whole subtree.
	Totals
	// Own covers the entry itself and, for a directory, the files directly
	// in it, without its subdirectories (du -S).
	Own Totals
	// Children are the reported entries directly below, sorted by name.
	Children []*Node
}

// sortChildren puts n's children in name order, as they are printed.
func (n *Node) sortChildren() {
	sort.Slice(n.Children, func(i, j int) bool { return n.Children[i].Name < n.Children[j].Name })
}

// Join joins a directory path and a name as du prints them: "a" and "b"
// give "a/b", "a/" and "b" give "a/b".
func Join(dir, name string) string {
	if len(dir) > 0 && dir[len(dir)-1] == '/' {
		return dir + name
	}
	return dir + "/" + name
}

// Walk visits each reported node of the tree below n after its children,
// in name order, with its path as du prints it. The root's path is its Name.
func (n *Node) Walk(fn func(path string, n *Node)) {
	n.walk(n.Name, fn)
}

func (n *Node) walk(path string, fn func(string, *Node)) {
	for _, c := range n.Children {
		c.walk(Join(path, c.Name), fn)
	}
	fn(path, n)
}

// Error is one failure met during a walk. Op is "read directory" (the
// directory's own size still counts) or "access" (the entry is not
// counted), as in du's messages.
type Error struct {
	Op   string
	Path string
	Err  error
}

func (e *Error) Error() string {
	if e.Err == nil {
		return "cannot " + e.Op + " " + e.Path
	}
	return "cannot " + e.Op + " " + e.Path + ": " + e.Err.Error()
}
func (e *Error) Unwrap() error { return e.Err }

// Walker walks trees. Its hard-link memory spans all its Walk calls, so
// operands walked by one Walker share it as du's operands do.
type Walker struct {
	opts    Options
	set     *inodeset.Set
	readers sync.Pool
	errMu   sync.Mutex
	nodeMu  sync.Mutex
	nerrs   atomic.Int64
	// Counters for Stats and Progress.
	ndirs, nfiles, nlinks, nblocks atomic.Int64
	current                        atomic.Pointer[dir] // a directory being read
	// checkAll is set once a non-directory with one link entered the set
	// (a file operand under HashAll): from then on every file must be
	// looked up, so no file may be folded.
	checkAll atomic.Bool
}

// New returns a Walker.
func New(opts Options) *Walker {
	if opts.Jobs <= 0 {
		opts.Jobs = DefaultJobs()
	}
	if opts.FollowAll {
		opts.HashAll = true
	}
	shards := 4 * opts.Jobs
	if shards < inodeset.DefaultShards {
		shards = inodeset.DefaultShards
	}
	w := &Walker{opts: opts, set: inodeset.New(shards)}
	// Following symlinks, a file with one link may be reached twice.
	w.checkAll.Store(opts.FollowAll)
	w.readers.New = func() any { return bulk.NewReader() }
	return w
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
	return Stats{Dirs: w.ndirs.Load(), Files: w.nfiles.Load(), LinksSkipped: w.nlinks.Load(),
		Blocks: w.nblocks.Load(), Errors: w.nerrs.Load()}
}

// Current is the path of a directory being read now, or "" (for progress
// displays; safe to call during a walk).
func (w *Walker) Current() string {
	if d := w.current.Load(); d != nil {
		return d.path()
	}
	return ""
}

// Errors is the number of errors met so far.
func (w *Walker) Errors() int64 { return w.nerrs.Load() }

func (w *Walker) fail(op, path string, err error) {
	w.nerrs.Add(1)
	if w.opts.OnError == nil {
		return
	}
	w.errMu.Lock()
	defer w.errMu.Unlock()
	w.opts.OnError(&Error{Op: op, Path: path, Err: err})
}

// seen reports whether the entry was counted before and must be skipped,
// recording it otherwise (du's hard-link rule).
func (w *Walker) seen(r *bulk.Record) bool {
	if w.opts.CountLinks {
		return false
	}
	isDir := r.Type == bulk.Directory
	if !w.opts.HashAll && (isDir || r.Nlink <= 1) {
		return false
	}
	if w.opts.HashAll && !isDir && r.Nlink <= 1 && !w.checkAll.Load() {
		// A file with one link sits in one directory, reached at most
		// once unless it was itself an operand (which sets checkAll).
		return false
	}
	return !w.set.Add(inodeset.Key{Dev: r.Dev, Ino: r.Ino})
}

// entryTotals is what one record contributes by itself.
func entryTotals(r *bulk.Record) Totals {
	t := Totals{Blocks: r.Blocks, Inodes: 1, Time: r.Tsec*1e9 + r.Tnsec}
	if r.Type == bulk.Regular || r.Type == bulk.Symlink {
		t.Bytes = r.Size
	}
	return t
}

// atomicTotals is a Totals that workers add to concurrently.
type atomicTotals struct {
	blocks, bytes, inodes, time atomic.Int64
}

func (a *atomicTotals) add(t Totals) {
	a.blocks.Add(t.Blocks)
	a.bytes.Add(t.Bytes)
	a.inodes.Add(t.Inodes)
	for {
		old := a.time.Load()
		if t.Time <= old || a.time.CompareAndSwap(old, t.Time) {
			break
		}
	}
}

func (a *atomicTotals) load() Totals {
	return Totals{Blocks: a.blocks.Load(), Bytes: a.bytes.Load(), Inodes: a.inodes.Load(), Time: a.time.Load()}
}

func (a *atomicTotals) init() {
	a.blocks.Store(0)
	a.bytes.Store(0)
	a.inodes.Store(0)
	a.time.Store(math.MinInt64)
}

// dir is a directory being walked.
type dir struct {
	parent *dir
	name   string
	depth  int
	dev    uint64 // st_dev and st_ino from the directory's own record
	ino    uint64
	// skipped: a mount point left out by -x after opening it (macOS).
	skipped bool
	d       bulk.Dir
	node    *Node // nil when not reported

	sub     atomicTotals // the subtree so far
	own     atomicTotals // the directory and its files
	pending atomic.Int32 // own reading + unfinished subdirectories
	fdRefs  atomic.Int32 // subdirectories not yet opened

	// fdMu guards d.d's descriptor once d is read: it may be shed (closed
	// to free descriptors, see run.shed) and reopened on demand.
	fdMu  sync.Mutex
	users int // subdirectories being opened relative to it right now

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
	d.sub.init()
	d.own.init()
	t := entryTotals(rec)
	d.sub.add(t)
	d.own.add(t)
	d.pending.Store(1)
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

// releaseFd drops one subdirectory's claim on d's descriptor; the last
// closes it.
func (r *run) releaseFd(d *dir) {
	if d != nil && d.fdRefs.Add(-1) == 0 {
		d.fdMu.Lock()
		d.d.Close()
		d.fdMu.Unlock()
		r.holdMu.Lock()
		delete(r.holding, d)
		r.holdMu.Unlock()
	}
}

// useFd returns d's descriptor for opening a subdirectory relative to it,
// reopening d if its descriptor was shed. Call doneFd after.
func (r *run) useFd(d *dir) (int, error) {
	d.fdMu.Lock()
	defer d.fdMu.Unlock()
	if d.d.Fd() < 0 {
		fd, err := r.reopen(d)
		if err != nil {
			return -1, err
		}
		d.d.OpenFd(fd, r.mode, d.dev)
	}
	d.users++
	return d.d.Fd(), nil
}

// reopen opens d anew, from its nearest ancestor that holds a descriptor
// (or its operand's path), closing the descriptors it opens on the way at
// once: a shed chain costs two descriptors at a time to cross, not one
// per level. The caller holds d.fdMu; locks are taken child to parent.
func (r *run) reopen(d *dir) (int, error) {
	flags := unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC | unix.O_NOCTTY | unix.O_NONBLOCK
	if d.parent == nil {
		if !r.follow {
			flags |= unix.O_NOFOLLOW
		}
		return unix.Open(d.name, flags, 0)
	}
	if r.mode&bulk.Follow == 0 {
		flags |= unix.O_NOFOLLOW
	}
	p := d.parent
	p.fdMu.Lock()
	if pfd := p.d.Fd(); pfd >= 0 {
		fd, err := unix.Openat(pfd, d.name, flags, 0)
		p.fdMu.Unlock()
		return fd, err
	}
	p.fdMu.Unlock()
	pfd, err := r.reopen(p)
	if err != nil {
		return -1, err
	}
	fd, err := unix.Openat(pfd, d.name, flags, 0)
	unix.Close(pfd)
	return fd, err
}

func (r *run) doneFd(d *dir) {
	d.fdMu.Lock()
	d.users--
	d.fdMu.Unlock()
}

// shed closes the descriptors of directories that are only waiting to
// open more subdirectories (they are reopened on demand), when the process
// has run out of descriptors. It returns how many it closed.
func (r *run) shed() int {
	r.holdMu.Lock()
	defer r.holdMu.Unlock()
	n := 0
	for d := range r.holding {
		if d.fdMu.TryLock() {
			if d.users == 0 && d.d.Fd() >= 0 {
				d.d.Close()
				n++
			}
			d.fdMu.Unlock()
		}
	}
	return n
}

// pause waits a millisecond for other workers to close descriptors. Not
// time.Sleep: the runtime's first timer needs a descriptor of its own
// (epoll), and there is none to be had.
func pause() {
	tv := unix.Timeval{Usec: 1000}
	unix.Select(0, nil, nil, nil, &tv)
}

// tooManyFiles reports whether err means the process or system is out of
// descriptors.
func tooManyFiles(err error) bool { return err == unix.EMFILE || err == unix.ENFILE }

// run is the state of one Walk call.
type run struct {
	w       *Walker
	ctx     context.Context
	g       *errgroup.Group
	rootDev uint64
	mode    bulk.Mode
	follow  bool // the operand is followed if a symlink

	holdMu  sync.Mutex
	holding map[*dir]struct{} // read directories whose descriptors wait for subdirectories

	linkMu sync.Mutex
	links  map[inodeset.Key]*linkClaim // hard-linked files met in this walk

	stackMu sync.Mutex
	stack   []*dir // subdirectories found and not yet taken by a worker
}

// linkClaim is the link a hard-linked file is charged to: the first in
// du's traversal order with each directory's entries sorted by name,
// whichever order the workers met the links in, so that every run
// charges the same directory and lists the same link.
type linkClaim struct {
	dir  *dir
	name string
	t    Totals
}

// after reports whether c comes after link (d, name) in traversal order:
// below their nearest common directory, compare the names of the entries
// that lead to each.
func (c *linkClaim) after(d *dir, name []byte) bool {
	x, xn := d, string(name)
	y, yn := c.dir, c.name
	for x.depth > y.depth {
		x, xn = x.parent, x.name
	}
	for y.depth > x.depth {
		y, yn = y.parent, y.name
	}
	for x != y {
		x, xn = x.parent, x.name
		y, yn = y.parent, y.name
	}
	return xn < yn
}

// claim offers link (d, name) of a hard-linked file; the walk charges the
// file to the first link in traversal order once it is over.
func (r *run) claim(k inodeset.Key, d *dir, name []byte, t Totals) {
	r.linkMu.Lock()
	defer r.linkMu.Unlock()
	c := r.links[k]
	switch {
	case c == nil:
		r.links[k] = &linkClaim{dir: d, name: string(name), t: t}
		return
	case c.after(d, name):
		c.dir, c.name = d, string(name)
	}
	r.w.nlinks.Add(1)
}

// chargeLinks adds each hard-linked file to the directory of its first
// link and to every reported directory above it, after the walk.
func (r *run) chargeLinks() {
	resort := map[*Node]bool{}
	for k, c := range r.links {
		r.w.set.Add(k) // later operands count it no more
		skipped := false
		for d := c.dir; d != nil; d = d.parent {
			skipped = skipped || d.skipped
		}
		if skipped {
			continue
		}
		for d := c.dir; d != nil; d = d.parent {
			if d.node != nil {
				d.node.Totals.Add(c.t)
			}
		}
		r.w.nfiles.Add(1)
		r.w.nblocks.Add(c.t.Blocks)
		n := c.dir.node
		if n == nil {
			continue
		}
		n.Own.Add(c.t)
		if r.w.opts.ListFiles && r.reported(c.dir.depth+1) {
			n.Children = append(n.Children, &Node{Name: c.name, Totals: c.t, Own: c.t})
			resort[n] = true
		}
	}
	for n := range resort {
		n.sortChildren()
	}
}

// Walk walks the tree at path and returns its root Node, or nil when the
// operand could not be examined or had been counted already (HashAll).
// Errors of entries go to OnError; the returned error is only ctx's.
func (w *Walker) Walk(ctx context.Context, path string) (*Node, error) {
	if w.opts.Exclude != nil && w.opts.Exclude(path) {
		return nil, ctx.Err()
	}
	follow := w.opts.FollowOperands || w.opts.FollowAll
	lmode := w.opts.Time
	if follow {
		lmode |= bulk.Follow
	}
	rec, err := bulk.Lstat(unix.AT_FDCWD, path, lmode)
	if err != nil {
		w.fail("access", path, danglingErr(unix.AT_FDCWD, path, follow, err))
		return nil, ctx.Err()
	}
	if w.opts.HashAll && !w.opts.CountLinks {
		if !w.set.Add(inodeset.Key{Dev: rec.Dev, Ino: rec.Ino}) {
			return nil, ctx.Err()
		}
		if rec.Type != bulk.Directory && rec.Nlink <= 1 {
			w.checkAll.Store(true)
		}
	} else if w.seen(&rec) {
		return nil, ctx.Err()
	}
	if rec.Type != bulk.Directory {
		t := entryTotals(&rec)
		n := &Node{Name: path, Totals: t, Own: t}
		w.emit(path, n)
		return n, ctx.Err()
	}

	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(w.opts.Jobs)
	r := &run{w: w, ctx: gctx, g: g, rootDev: rec.Dev, follow: follow, holding: map[*dir]struct{}{},
		links: map[inodeset.Key]*linkClaim{}}
	if !w.opts.ListFiles && !w.checkAll.Load() {
		r.mode = bulk.Fold
	}
	if w.opts.OneFileSystem && bulk.MountPointsShowCovered {
		r.mode |= bulk.DirStat
	}
	if w.opts.FollowAll {
		r.mode |= bulk.Follow
	}
	if w.opts.Exclude != nil {
		r.mode &^= bulk.Fold // every name must be matched
	}
	r.mode |= w.opts.Time
	root := newDir(nil, path, 0, &rec)
	root.node = &Node{Name: path, IsDir: true}
	root.fdRefs.Store(1)

	flags := unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC | unix.O_NOCTTY | unix.O_NONBLOCK
	if !follow {
		flags |= unix.O_NOFOLLOW
	}
	fd, err := unix.Open(path, flags, 0)
	for try := 0; tooManyFiles(err) && try < 1000; try++ {
		pause() // other operands' walks are over; the caller may hold some
		fd, err = unix.Open(path, flags, 0)
	}
	if err != nil {
		w.fail("read directory", path, err)
		r.finish(root) // its own size still counts
		return root.node, ctx.Err()
	}
	g.Go(func() error {
		rd := w.readers.Get().(*bulk.Reader)
		r.visit(rd, root, fd)
		r.work(rd)
		w.readers.Put(rd)
		return nil
	})
	g.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r.chargeLinks()
	return root.node, nil
}

func (w *Walker) emit(path string, n *Node) {
	if w.opts.OnNode == nil {
		return
	}
	w.nodeMu.Lock()
	defer w.nodeMu.Unlock()
	w.opts.OnNode(path, n)
}

func (r *run) reported(depth int) bool {
	return r.w.opts.MaxDepth < 0 || depth <= r.w.opts.MaxDepth
}

// visit reads directory d (opening it relative to its parent, or using fd
// for a root), then walks its subdirectories.
func (r *run) visit(rd *bulk.Reader, d *dir, fd int) {
	if r.ctx.Err() != nil {
		if d.parent == nil {
			unix.Close(fd)
		}
		r.releaseFd(d.parent)
		return
	}
	r.w.current.Store(d)
	r.w.ndirs.Add(1)
	r.w.nblocks.Add(d.own.blocks.Load())
	var b bulk.Batch
	var err error
	if d.parent == nil {
		d.d.OpenFd(fd, r.mode, d.dev)
		b, err = rd.Read(&d.d)
	} else {
		// Out of descriptors, shed those of directories that only wait
		// to open subdirectories, or wait for other workers to close
		// theirs, and try again.
		for try := 0; ; try++ {
			var pfd int
			if pfd, err = r.useFd(d.parent); err == nil {
				d.d.Open(pfd, d.name, r.mode, d.dev)
				b, err = rd.Read(&d.d)
				r.doneFd(d.parent)
			}
			if !tooManyFiles(err) || d.d.Fd() >= 0 || try == 1000 {
				break
			}
			if r.shed() == 0 {
				pause()
			}
		}
	}
	r.releaseFd(d.parent)
	if r.mode&bulk.DirStat != 0 && err == nil && d.parent != nil && d.d.Dev() != r.rootDev {
		// A mount point whose record showed the covered directory (macOS):
		// with -x it is skipped, its own size included.
		d.d.Close()
		d.sub.init()
		d.node = nil
		d.skipped = true
		r.finish(d)
		return
	}
	r.take(d, &b)
	if err == nil && b.More {
		err = r.readRest(rd, d)
	}
	if err != nil {
		r.w.fail("read directory", d.path(), err)
	}

	subdirs := d.subdirs
	d.subdirs = nil
	d.pending.Add(int32(len(subdirs)))
	d.fdRefs.Store(int32(len(subdirs)) + 1)
	if len(subdirs) > 0 {
		r.holdMu.Lock()
		r.holding[d] = struct{}{}
		r.holdMu.Unlock()
	}
	r.releaseFd(d) // our own claim: closes now if there are no subdirectories
	// The subdirectories go on the walk's shared stack, where any worker
	// takes the next; new workers are started while slots are free
	// (TryGo), and this one goes on with the next itself (work).
	r.push(subdirs)
	for i := 1; i < len(subdirs) && r.g.TryGo(r.helper); i++ {
	}
	r.finish(d)
}

// push puts subdirectories on the shared stack, the first by name on top,
// so that the walk goes depth first in name order where it can.
func (r *run) push(ds []*dir) {
	if len(ds) == 0 {
		return
	}
	r.stackMu.Lock()
	for i := len(ds) - 1; i >= 0; i-- {
		r.stack = append(r.stack, ds[i])
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
	d := r.stack[n-1]
	r.stack[n-1] = nil
	r.stack = r.stack[:n-1]
	return d
}

// work visits directories from the shared stack until it is empty. A
// worker that finds the stack empty ends: the others' pushes start new
// ones.
func (r *run) work(rd *bulk.Reader) {
	for d := r.pop(); d != nil; d = r.pop() {
		r.visit(rd, d, -1)
	}
}

func (r *run) helper() error {
	rd := r.w.readers.Get().(*bulk.Reader)
	r.work(rd)
	r.w.readers.Put(rd)
	return nil
}

// readRest reads the rest of a directory that did not fit in one batch.
// Where the system can list names apart from examining them, the listing
// stays here and the batches of names are examined by helper workers, so
// a huge directory does not serialise on one core.
func (r *run) readRest(rd *bulk.Reader, d *dir) error {
	if !bulk.CanSplit {
		for {
			b, err := rd.Read(&d.d)
			r.take(d, &b)
			if err != nil || !b.More {
				return err
			}
		}
	}
	d.d.SetMode(r.mode | bulk.NamesOnly)
	fd := d.d.Fd()
	// The listing stays here; listed batches go to a short queue that
	// helpers drain, each taking the next batch as soon as it is done, so
	// listing never waits on one batch's statx calls. Helpers are started
	// whenever a slot is free; with the queue full, this worker examines
	// a batch itself.
	type listed struct {
		rd *bulk.Reader
		b  bulk.Batch
	}
	queue := make(chan listed, r.w.opts.Jobs)
	examine := func(l listed) {
		b := l.rd.Stat(fd, d.dev, l.b, r.mode)
		r.take(d, &b)
		r.w.readers.Put(l.rd)
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
		names, err = rd.Read(&d.d)
		more = names.More
		lr := r.w.readers.Get().(*bulk.Reader)
		l := listed{lr, lr.Adopt(names)}
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

// take adds one batch of d's entries: folded sums and files to d's totals,
// subdirectories to d's list. Several workers may take batches of one d.
func (r *run) take(d *dir, b *bulk.Batch) {
	own := Totals{Blocks: b.Folded.Blocks, Bytes: b.Folded.Size, Inodes: int64(b.Folded.Count), Time: math.MinInt64}
	if b.Folded.Count > 0 && r.mode&(bulk.ATime|bulk.MTime|bulk.CTime) != 0 {
		own.Time = b.Folded.TMaxSec*1e9 + b.Folded.TMaxNsec
	}
	opts := &r.w.opts
	childDepth := d.depth + 1
	var subdirs []*dir
	var files []*Node
	var dpath string
	if opts.Exclude != nil && len(b.Records) > 0 {
		dpath = d.path()
	}
	for i := range b.Records {
		rec := &b.Records[i]
		if opts.Exclude != nil && opts.Exclude(Join(dpath, string(b.Name(rec)))) {
			continue
		}
		if rec.Errno != 0 {
			r.w.fail("access", Join(d.path(), string(b.Name(rec))),
				danglingErr(d.d.Fd(), string(b.Name(rec)), r.mode&bulk.Follow != 0, rec.Err()))
			continue
		}
		if opts.OneFileSystem && rec.Dev != r.rootDev {
			continue
		}
		if rec.Flags&bulk.FlagFirmlink != 0 {
			// macOS: a firmlink is a second path into the Data volume,
			// which is counted where it is mounted; counting both would
			// count it twice in a walk of /.
			continue
		}
		if !opts.CountLinks && rec.Type != bulk.Directory && rec.Nlink > 1 {
			k := inodeset.Key{Dev: rec.Dev, Ino: rec.Ino}
			if r.w.set.Contains(k) { // counted under an earlier operand
				r.w.nlinks.Add(1)
			} else {
				r.claim(k, d, b.Name(rec), entryTotals(rec))
			}
			continue
		}
		if r.w.seen(rec) {
			r.w.nlinks.Add(1)
			continue
		}
		t := entryTotals(rec)
		if rec.Type == bulk.Directory {
			if d.cycle(rec) {
				// A directory that contains itself (a bind mount of an
				// ancestor): du skips it silently, and counts nothing.
				continue
			}
			c := newDir(d, string(b.Name(rec)), childDepth, rec)
			if r.reported(childDepth) {
				c.node = &Node{Name: c.name, IsDir: true}
			}
			subdirs = append(subdirs, c)
			continue
		}
		own.Add(t)
		if opts.ListFiles && d.node != nil && r.reported(childDepth) {
			files = append(files, &Node{Name: string(b.Name(rec)), Totals: t, Own: t})
		}
	}
	d.sub.add(own)
	d.own.add(own)
	r.w.nfiles.Add(own.Inodes)
	r.w.nblocks.Add(own.Blocks)
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
	for d != nil && d.pending.Add(-1) == 0 {
		t := d.sub.load()
		if d.node != nil {
			d.node.Totals, d.node.Own = t, d.own.load()
			d.node.sortChildren()
			if r.w.opts.OnNode != nil {
				r.w.emit(d.path(), d.node)
			}
		}
		p := d.parent
		if p == nil {
			return
		}
		p.sub.add(t)
		if d.node != nil && p.node != nil {
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
	if !follow || err != unix.ENOENT {
		return err
	}
	if _, lerr := bulk.Lstat(dirfd, name, 0); lerr == nil {
		return nil
	}
	return err
}
