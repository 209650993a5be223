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
// workers examine its entries. Once a directory is read whole, its
// subdirectories go to the core's subtree walk (bulk.Reader.Tree), which
// reads them and what is below them in one call until a budget of entries
// is spent; only the directories it leaves unread come back to the
// workers, below stand-ins for the read ones on their way. Totals flow
// bottom-up: a directory is complete when its own entries and all its
// subdirectories are.
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
// Options.ListFiles), children sorted by name; or, with Options.Stream,
// the same entries handed out in order as their subtrees complete, in
// bounded memory, and no tree (stream.go). Errors go to Options.OnError as
// *Error values.
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
	// CheckFiles, with HashAll, looks every file up in the set from the
	// start, not only once a file operand was met: needed when a later
	// operand may be a file already counted under an earlier one.
	CheckFiles bool
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
	// these totals yet (but with MaxDepth 0): each is charged, once, to the
	// first of its links in traversal order when the walk is over, and is
	// in the tree Walk returns.
	OnNode func(path string, n *Node)
	// Stream, if set, receives every reported Node in du's order (children
	// before their directory, siblings by name), each as soon as its
	// subtree is complete and every Node before it has been received, with
	// its final figures, hard links included (stream.go). Calls are
	// serialised. Walk then keeps no Node below the root: the root it
	// returns has no Children.
	Stream func(path string, n *Node)
	// Details, with Stream, ListFiles and no MaxDepth, fills each streamed
	// Node's Detail and streams, as files, the entries left out (--exclude,
	// -x), those that could not be examined, and every further link to a
	// hard-linked file, uncounted; OnEnter, if set, then receives each
	// directory before its children. For exports that describe every
	// entry (ncdu's format).
	Details bool
	OnEnter func(path string, n *Node)
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
	// Detail describes the entry itself, with Options.Details.
	Detail Detail
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
	setUsed atomic.Bool // set holds a key: lookups can find something
	errMu   sync.Mutex
	nodeMu  sync.Mutex
	nerrs   atomic.Int64

	workMu sync.Mutex
	idle   []*worker // workers free to be taken
	all    []*worker // every worker made, for Stats and Current
	after  counters  // counts made after a walk (hard links charged)
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
	w.checkAll.Store(opts.FollowAll || opts.HashAll && opts.CheckFiles)
	return w
}

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
	// Scratch of walkTree.
	anc      []uint64
	kids     []int32
	leftKids []int32
	tdirs    []*dir
	sub      []Totals
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
	wk.current.Store(nil)
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
	return !w.add(inodeset.Key{Dev: r.Dev, Ino: r.Ino})
}

// add puts k in the hard-link set, reporting whether it was absent.
func (w *Walker) add(k inodeset.Key) bool {
	if !w.setUsed.Load() {
		w.setUsed.Store(true)
	}
	return w.set.Add(k)
}

// entryTotals is what one record contributes by itself.
func entryTotals(r *bulk.Record) Totals {
	t := Totals{Blocks: r.Blocks, Inodes: 1, Time: r.Tsec*1e9 + r.Tnsec}
	if r.Type == bulk.Regular || r.Type == bulk.Symlink {
		t.Bytes = r.Size
	}
	return t
}

// atomicTotals is a Totals that workers add to concurrently. Its fields
// are plain words used through sync/atomic, so that a new directory's
// totals are set without atomic stores before any other worker can see
// it; the zero value is empty (tbias 0 is no time).
type atomicTotals struct {
	blocks, bytes, inodes int64
	tbias                 uint64 // Time with its sign bit flipped: ordered as unsigned
}

func biasTime(t int64) uint64 { return uint64(t) ^ 1<<63 }

// set makes a equal to t; only while a is not yet shared.
func (a *atomicTotals) set(t Totals) {
	*a = atomicTotals{blocks: t.Blocks, bytes: t.Bytes, inodes: t.Inodes, tbias: biasTime(t.Time)}
}

func (a *atomicTotals) add(t Totals) {
	atomic.AddInt64(&a.blocks, t.Blocks)
	atomic.AddInt64(&a.bytes, t.Bytes)
	atomic.AddInt64(&a.inodes, t.Inodes)
	if t.Time == math.MinInt64 {
		return
	}
	for b := biasTime(t.Time); ; {
		old := atomic.LoadUint64(&a.tbias)
		if b <= old || atomic.CompareAndSwapUint64(&a.tbias, old, b) {
			break
		}
	}
}

func (a *atomicTotals) load() Totals {
	return Totals{Blocks: atomic.LoadInt64(&a.blocks), Bytes: atomic.LoadInt64(&a.bytes),
		Inodes: atomic.LoadInt64(&a.inodes), Time: int64(atomic.LoadUint64(&a.tbias) ^ 1<<63)}
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
	node    *Node      // nil when not reported
	st      *streamDir // with Options.Stream: kept for the emitter

	sub     atomicTotals // the subtree so far
	own     atomicTotals // the directory and its files
	pending int32        // own reading + unfinished subdirectories (atomic)
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

// releaseFd drops one subdirectory's claim on d's descriptor; the last
// closes it.
func (r *run) releaseFd(d *dir) {
	if d != nil && d.fdRefs.Add(-1) == 0 {
		d.fdMu.Lock()
		d.d.Close()
		d.fdMu.Unlock()
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

// waitFor adds d to (or removes it from) the directories whose opening
// waits for a descriptor.
func (r *run) waitFor(d *dir, waits bool) {
	r.waitMu.Lock()
	defer r.waitMu.Unlock()
	if waits {
		r.waiting = append(r.waiting, d)
		return
	}
	for i, w := range r.waiting {
		if w == d {
			r.waiting = append(r.waiting[:i], r.waiting[i+1:]...)
			break
		}
	}
}

// shed closes the descriptors of directories that are only waiting to
// open more subdirectories (they are reopened on demand), when the process
// has run out of descriptors. It returns how many it closed. Such a
// directory is the parent of a directory on the shared stack or of one
// whose opening waits for a descriptor: a read directory keeps its
// descriptor only while subdirectories of it wait there or are being
// opened, and one being opened right now is in use.
func (r *run) shed() int {
	r.stackMu.Lock()
	defer r.stackMu.Unlock()
	r.waitMu.Lock()
	defer r.waitMu.Unlock()
	n := 0
	try := func(d *dir) {
		if d != nil && d.fdMu.TryLock() {
			if d.users == 0 && d.d.Fd() >= 0 {
				d.d.Close()
				n++
			}
			d.fdMu.Unlock()
		}
	}
	for i, c := range r.stack {
		if i == 0 || r.stack[i-1].parent != c.parent { // siblings lie together
			try(c.parent)
		}
	}
	for _, c := range r.waiting {
		try(c.parent)
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

// linkClaim is the link a hard-linked file is charged to: the first in
// du's traversal order with each directory's entries sorted by name,
// whichever order the workers met the links in, so that every run
// charges the same directory and lists the same link.
type linkClaim struct {
	dir  *dir
	name string
	t    Totals
}

// linkTable maps hard-linked files to their claims. Files on the walk's
// own device are keyed by inode number alone (Go hashes one word in a
// quarter of the time of two); files on other devices by (device, inode).
type linkTable struct {
	dev   uint64
	m     map[uint64]*linkClaim
	other map[inodeset.Key]*linkClaim
}

func (t *linkTable) get(k inodeset.Key) *linkClaim {
	if k.Dev == t.dev {
		return t.m[k.Ino]
	}
	return t.other[k]
}

func (t *linkTable) put(k inodeset.Key, c *linkClaim) {
	if k.Dev == t.dev {
		if t.m == nil {
			t.m = map[uint64]*linkClaim{}
		}
		t.m[k.Ino] = c
		return
	}
	if t.other == nil {
		t.other = map[inodeset.Key]*linkClaim{}
	}
	t.other[k] = c
}

func (t *linkTable) each(fn func(inodeset.Key, *linkClaim)) {
	for ino, c := range t.m {
		fn(inodeset.Key{Dev: t.dev, Ino: ino}, c)
	}
	for k, c := range t.other {
		fn(k, c)
	}
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

// claim offers the links to hard-linked files among b's records (indices
// in b.Records), found in d; the walk charges each file to the first of its
// links in traversal order once it is over. A file counted under an earlier
// operand is skipped. One lock per batch: workers finding links at once
// contend on it per directory, not per link.
func (r *run) claim(wk *worker, d *dir, b *bulk.Batch, links []int32) {
	counted := r.w.setUsed.Load()
	skipped := int64(0)
	r.linkMu.Lock()
	for _, i := range links {
		rec := &b.Records[i]
		k := inodeset.Key{Dev: rec.Dev, Ino: rec.Ino}
		if counted && r.w.set.Contains(k) {
			skipped++
			continue
		}
		name := b.Name(rec)
		c := r.links.get(k)
		switch {
		case c == nil:
			r.links.put(k, &linkClaim{dir: d, name: string(name), t: entryTotals(rec)})
			continue
		case c.after(d, name):
			c.dir, c.name = d, string(name)
		}
		skipped++
	}
	r.linkMu.Unlock()
	wk.links.Add(skipped)
}

// chargeLinks adds each hard-linked file to the directory of its first
// link and to every reported directory above it, after the walk.
func (r *run) chargeLinks() {
	resort := map[*Node]bool{}
	var files, blocks int64
	r.links.each(func(k inodeset.Key, c *linkClaim) {
		r.w.add(k) // later operands count it no more
		for d := c.dir; d != nil; d = d.parent {
			if d.skipped {
				return
			}
		}
		for d := c.dir; d != nil; d = d.parent {
			if d.node != nil {
				d.node.Totals.Add(c.t)
			}
		}
		files++
		blocks += c.t.Blocks
		n := c.dir.node
		if n == nil {
			return
		}
		n.Own.Add(c.t)
		if r.w.opts.ListFiles && r.reported(c.dir.depth+1) {
			n.Children = append(n.Children, &Node{Name: c.name, Totals: c.t, Own: c.t})
			resort[n] = true
		}
	})
	r.w.after.files.Add(files)
	r.w.after.blocks.Add(blocks)
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
		if !w.add(inodeset.Key{Dev: rec.Dev, Ino: rec.Ino}) {
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
		if w.opts.Stream != nil {
			w.opts.Stream(path, n)
		}
		return n, ctx.Err()
	}

	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(w.opts.Jobs)
	r := &run{w: w, ctx: gctx, g: g, rootDev: rec.Dev, follow: follow,
		links: linkTable{dev: rec.Dev}}
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
	// The subtree walk folds every plain file and follows nothing.
	r.tree = subtreeWalk && r.mode&^w.opts.Time == bulk.Fold && !w.opts.HashAll
	r.linksNow = w.opts.MaxDepth == 0 && !w.opts.ListFiles
	r.treeMode = w.opts.Time
	if w.opts.OneFileSystem {
		r.treeMode |= bulk.TreeOneFS
	}
	if w.opts.CountLinks {
		r.treeMode |= bulk.TreeAllLinks
	}
	root := newDir(nil, path, 0, &rec)
	root.node = &Node{Name: path, IsDir: true}
	if w.opts.Details {
		root.node.Detail = Detail{Self: entryTotals(&rec), Dev: rec.Dev}
	}
	root.fdRefs.Store(1)
	if w.opts.Stream != nil {
		r.em = &emitter{r: r, stack: []frame{{d: root, path: path}}}
		defer r.em.spill.close()
		root.stream()
	}

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
		if r.em != nil {
			r.streamListed(root)
		}
		r.finish(root) // its own size still counts
		return root.node, ctx.Err()
	}
	g.Go(func() error {
		wk := w.getWorker()
		r.visit(wk, root, fd)
		r.work(wk)
		w.putWorker(wk)
		return nil
	})
	g.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if r.em != nil {
		r.em.kick() // every entry is complete: hands out the rest
		return root.node, nil
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
func (r *run) visit(wk *worker, d *dir, fd int) {
	if r.ctx.Err() != nil {
		if d.parent == nil {
			unix.Close(fd)
		}
		r.releaseFd(d.parent)
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
			if path := d.path(); waits > 8 && len(path) < unix.PathMax {
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

// readRest reads the rest of a directory that did not fit in one batch.
// Where the system can list names apart from examining them, the listing
// stays here and the batches of names are examined by helper workers, so
// a huge directory does not serialise on one core.
func (r *run) readRest(wk *worker, d *dir) error {
	rd := wk.rd
	if !bulk.CanSplit {
		for {
			b, err := rd.Read(&d.d)
			r.take(wk, d, &b, false)
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
		names, err = rd.Read(&d.d)
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

// walkTree reads the subtree below d through the core's subtree walk,
// from the subdirectories take listed, and adds what it read to d. Read
// directories that are reported get their Nodes here, complete. It
// returns the directories the walk left unread, below new directories
// standing for the read ones on their way (their descriptors closed, to
// be reopened on demand like shed ones; they complete when what is below
// them does); how many of both are d's own subdirectories (d's pending
// claims); and how many of those are left ones (its descriptor's claims:
// only those open themselves relative to it).
func (r *run) walkTree(wk *worker, d *dir) (left []*dir, direct, directLeft int) {
	anc := wk.anc[:0]
	for a := d; a != nil; a = a.parent {
		anc = append(anc, a.dev, a.ino)
	}
	wk.anc = anc
	t := wk.rd.Tree(d.d.Fd(), r.rootDev, anc, r.treeBudget(), r.treeMode)
	wk.dirs.Add(int64(t.Dirs))
	wk.files.Add(int64(t.Files))
	wk.blocks.Add(t.Sum.Blocks)

	nodes := t.Nodes
	n := len(nodes)
	if cap(wk.kids) < n {
		wk.kids = make([]int32, n)
		wk.leftKids = make([]int32, n)
		wk.tdirs = make([]*dir, n)
		wk.sub = make([]Totals, n)
	}
	kids, leftKids, dirs, sub := wk.kids[:n], wk.leftKids[:n], wk.tdirs[:n], wk.sub[:n]
	clear(kids)
	clear(leftKids)
	for i := range sub {
		sub[i] = Totals{Time: math.MinInt64}
	}
	// own is what a read node holds itself: its entry and its files.
	own := func(nd *bulk.TreeNode) Totals {
		rec := nd.Record()
		o := entryTotals(&rec)
		o.Add(Totals{Blocks: nd.FBlocks, Bytes: nd.FSize, Inodes: int64(nd.Files), Time: math.MinInt64})
		if nd.FTsec != math.MinInt64 {
			o.Time = max(o.Time, nd.FTsec*1e9+nd.FTnsec)
		}
		return o
	}
	// Nodes come after the node they were found in. From the last:
	// kids[i] counts the directories right below node i that stand in
	// the walk (left ones, or read ones above left ones), leftKids[i] the
	// left ones among them, and sub[i] sums node i and the read subtrees
	// below it that stand for nothing.
	dsub := Totals{Time: math.MinInt64}
	for i := n - 1; i >= 0; i-- {
		nd := &nodes[i]
		standing := nd.Done == 0 || kids[i] > 0
		if nd.Done != 0 {
			sub[i].Add(own(nd))
		}
		switch {
		case standing && nd.Parent >= 0:
			kids[nd.Parent]++
			if nd.Done == 0 {
				leftKids[nd.Parent]++
			}
		case standing:
			direct++
			if nd.Done == 0 {
				directLeft++
			}
		case nd.Parent >= 0:
			sub[nd.Parent].Add(sub[i])
		default:
			dsub.Add(sub[i])
		}
	}
	d.sub.add(dsub)

	var done []int // read, reported and standing for nothing: complete here
	for i := range nodes {
		nd := &nodes[i]
		p := d
		if nd.Parent >= 0 {
			p = dirs[nd.Parent]
		}
		if p == nil { // below a read directory neither reported nor standing
			continue
		}
		depth := p.depth + 1
		standing := nd.Done == 0 || kids[i] > 0
		if !standing && !r.reported(depth) {
			continue
		}
		name := string(t.NodeName(nd))
		var c *dir
		switch {
		case nd.Done == 0:
			rec := nd.Record()
			c = newDir(p, name, depth, &rec)
			left = append(left, c)
		case standing:
			c = &dir{parent: p, name: name, depth: depth, dev: nd.Dev, ino: nd.Ino, pending: kids[i]}
			c.sub.set(sub[i])
			c.own.set(own(nd))
			c.fdRefs.Store(leftKids[i])
			if nd.Fd >= 0 { // its left subdirectories open from it
				c.d.OpenFd(int(nd.Fd), r.mode, nd.Dev)
			}
		default:
			c = &dir{parent: p, name: name, depth: depth, dev: nd.Dev, ino: nd.Ino}
			done = append(done, i)
		}
		if r.reported(depth) {
			c.node = &Node{Name: name, IsDir: true}
			if !standing {
				c.node.Totals, c.node.Own = sub[i], own(nd)
			}
			switch {
			case r.em != nil:
				r.streamSubdir(p, c)
			case !standing:
				p.mu.Lock()
				p.node.Children = append(p.node.Children, c.node)
				p.mu.Unlock()
			}
		}
		dirs[i] = c
	}
	// Complete nodes, children before parents as OnNode has them.
	for k := len(done) - 1; k >= 0; k-- {
		c := dirs[done[k]]
		c.node.sortChildren()
		if r.w.opts.OnNode != nil {
			r.w.emit(c.path(), c.node)
		}
	}
	if len(t.Links.Records) > 0 {
		switch {
		case r.linksNow:
			r.countTreeLinks(wk, d, &t)
		case r.em != nil:
			r.streamTreeLinks(d, &t, dirs)
		default:
			r.claimTree(wk, d, &t, dirs)
		}
	}
	if r.em != nil {
		for i, c := range dirs { // read here: listed (left ones when visited)
			if c != nil && c.node != nil && nodes[i].Done != 0 {
				r.streamListed(c)
			}
		}
		for _, i := range done {
			r.streamComplete(dirs[i])
		}
	}
	clear(dirs)
	return left, direct, directLeft
}

// countTreeLinks counts, with linksNow, each file the links a subtree
// walk met lead to unless it was counted already, in d's subtree.
func (r *run) countTreeLinks(wk *worker, d *dir, t *bulk.Tree) {
	sum := Totals{Time: math.MinInt64}
	for i := range t.Links.Records {
		rec := &t.Links.Records[i]
		if r.w.seen(rec) {
			wk.links.Add(1)
			continue
		}
		sum.Add(entryTotals(rec))
	}
	d.sub.add(sum)
	wk.files.Add(sum.Inodes)
	wk.blocks.Add(sum.Blocks)
}

// claimTree claims the hard links a subtree walk met. A link in a
// directory that has a dir here is claimed for it; one deeper for a dir
// made for the directory right below the nearest that has one, and not
// reported: below it, which link is charged changes no reported figure,
// and the reported directory's own (du -S) figure leaves it out.
func (r *run) claimTree(wk *worker, d *dir, t *bulk.Tree, dirs []*dir) {
	holder := func(i int32) *dir {
		below := int32(-1)
		p := d
		for j := i; j >= 0; j = t.Nodes[j].Parent {
			if dirs[j] != nil {
				p = dirs[j]
				break
			}
			below = j
		}
		if below < 0 {
			return p
		}
		nd := &t.Nodes[below]
		c := &dir{parent: p, name: string(t.NodeName(nd)), depth: p.depth + 1, dev: nd.Dev, ino: nd.Ino}
		dirs[below] = c
		return c
	}
	var idx []int32
	var cur *dir
	for k, ni := range t.LinkNodes {
		h := holder(ni)
		if h != cur && len(idx) > 0 {
			r.claim(wk, cur, &t.Links, idx)
			idx = idx[:0]
		}
		cur = h
		idx = append(idx, int32(k))
	}
	r.claim(wk, cur, &t.Links, idx)
}

// treeBudget is how many entries one subtree walk may examine: few while
// the shared stack is short (other workers would wait for what the walk
// leaves), more as it fills.
func (r *run) treeBudget() int {
	r.stackMu.Lock()
	n := len(r.stack)
	r.stackMu.Unlock()
	return treeBudgetMin << min(n, 4)
}

// treeBudgetMin is the least budget of a subtree walk, and subtreeWalk
// whether walks use it at all: variables for tests.
var (
	treeBudgetMin = 256
	subtreeWalk   = bulk.CanTree
)

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
				c.node = &Node{Name: c.name, IsDir: true}
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
			files = append(files, &Node{Name: string(b.Name(rec)), Totals: t, Own: t})
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
			if r.w.opts.OnNode != nil {
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
	if !follow || err != unix.ENOENT {
		return err
	}
	if _, lerr := bulk.Lstat(dirfd, name, 0); lerr == nil {
		return nil
	}
	return err
}
