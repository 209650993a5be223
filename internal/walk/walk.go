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
// open only until its last subdirectory has been opened (descriptor, fd.go).
// Out of descriptors (EMFILE), one retry loop (openScarce, scarce.go)
// closes the descriptors of directories that only wait for their
// subdirectories to be opened; they are reopened on demand from the
// nearest open ancestor.
//
// The result of a walk is a tree of Nodes holding the entries the caller
// asked to see (directories down to Options.MaxDepth, files too with
// Options.ListFiles), children sorted by name; or, with Options.Stream,
// the same entries handed out in order as their subtrees complete, in
// bounded memory, and no tree (stream.go). Errors go to Options.OnError as
// *Error values.
//
// The files: walk.go (Options, New, Walk), totals.go (Totals, Node, Error),
// workers.go (per-worker state, Stats), dir.go (a directory being walked),
// fd.go and scarce.go (descriptors), beneath_*.go and reopen_*.go (opens
// that refuse symlinks), links.go (hard links), scan.go (one Walk call's
// state, the scheduler), visit.go (one directory), split.go (a huge
// directory), subtree.go (the subtree walk), stream.go, order.go, packed.go
// and spill*.go (the ordered stream).
package walk

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/godu-sh/godu/internal/bulk"
	"github.com/godu-sh/godu/internal/inodeset"
	"github.com/godu-sh/godu/internal/sys"
)

// Options configures a Walker.
type Options struct {
	// Jobs bounds the goroutines (and so OS threads and open directories)
	// working at once. <= 0 means DefaultJobs(); above MaxJobs, MaxJobs.
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
	// Aliased, with HashAll, says a file or directory may be reached by
	// paths other than its hard links (a bind mount below an operand,
	// /proc): each is counted at the first of its paths in du's order,
	// files with one link too, as under FollowAll (and at its cost).
	Aliased bool
	// CheckFiles, with HashAll, looks every file up in the set from the
	// start, not only once a file operand was met: needed when a later
	// operand may be a file already counted under an earlier one.
	CheckFiles bool
	// SeparateDirs says Node.Own figures are used (du -S): a file linked
	// in several directories counts, in each directory's own figure, where
	// du meets it first, even when only the operand is reported.
	SeparateDirs bool
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
	// serialised. Nil discards errors (Stats still counts them).
	OnError func(*Error)
	// OnNode, if set, is called once for each reported Node as soon as its
	// subtree is complete (children before parents, in no set order
	// among siblings). Calls are serialised. Hard-linked files are not in
	// these totals yet (but with MaxDepth 0): each is charged, once, to the
	// first of its links in traversal order when the walk is over, and is
	// in the tree Walk returns. The operand's Node comes last, once they
	// are charged: with its final figures.
	OnNode func(path string, n *Node)
	// Stream, if set, receives every reported Node in du's order (children
	// before their directory, siblings by name), each as soon as its
	// subtree is complete and every Node before it has been received, with
	// its final figures, hard links included (stream.go). Calls are
	// serialised. Walk then keeps no Node below the root: the root it
	// returns has no Children. A path, and a file's Node and the Node's
	// Name, are valid during the call only: the stream reuses their memory
	// for the next entry (keep a copy, strings.Clone, to keep one).
	Stream func(path string, n *Node)
	// Details, with Stream, ListFiles and no MaxDepth, fills each streamed
	// Node's Detail and streams, as files, the entries left out (--exclude,
	// -x), those that could not be examined, and every further link to a
	// hard-linked file, uncounted; OnEnter, if set, then receives each
	// directory before its children. For exports that describe every
	// entry (ncdu's format).
	Details bool
	OnEnter func(path string, n *Node)
	// FileIDs, with Stream, gives each streamed file's Node its Type, Dev
	// and Ino (the stream keeps them beside its name until it is handed
	// out: about 10 bytes a file).
	FileIDs bool
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
	// operandsHopeless: an operand could not be opened for want of
	// descriptors in its few tries (openScarce); the next operands, of
	// this Walker's walks, get none, so that a process starved of
	// descriptors ends with du's message at once instead of pausing for
	// each. An operand opened clears it.
	operandsHopeless atomic.Bool
}

// ordered reports whether a file or directory may be reached by paths
// other than its hard links: following symlinks (FollowAll), or under
// Aliased. Each then counts at its first path in du's order (the ordered
// walk), and a file with one link may be met twice.
func (w *Walker) ordered() bool { return w.opts.FollowAll || w.opts.HashAll && w.opts.Aliased }

// MaxJobs bounds Options.Jobs: more workers than that wait on the same
// CPUs and descriptors, each a thread while in a system call (the Go
// runtime ends a program at 10,000 threads), and the hard-link set has
// shards for four times the workers.
const MaxJobs = 4096

// New returns a Walker.
func New(opts Options) *Walker {
	if opts.Jobs <= 0 {
		opts.Jobs = DefaultJobs()
	}
	opts.Jobs = min(opts.Jobs, MaxJobs)
	if opts.FollowAll {
		opts.HashAll = true
	}
	shards := 4 * opts.Jobs
	if shards < inodeset.DefaultShards {
		shards = inodeset.DefaultShards
	}
	w := &Walker{opts: opts, set: inodeset.New(shards)}
	w.checkAll.Store(w.ordered() || opts.HashAll && opts.CheckFiles)
	StartPoller()
	return w
}

// StartPoller starts the runtime's poller, once: it takes two
// descriptors (epoll, eventfd) the first time a timer is set, the
// garbage collector's own included, and the runtime dies ("netpollinit
// failed") when it cannot have them. A walk may hold every descriptor
// the process has left (it waits and reopens when short), so New takes
// them first, while they are to be had; the command, at start.
func StartPoller() {
	pollerOnce.Do(func() { time.AfterFunc(time.Hour, func() {}).Stop() })
}

var pollerOnce sync.Once

// Walk walks the tree at path and returns its root Node, or nil when the
// operand could not be examined or had been counted already (HashAll).
// Errors of entries go to OnError; the returned error is only ctx's.
// When ctx ends first, the Node is the tree of what was read by then,
// each directory's sums covering what was read of it (with Stream, the
// operand's Node alone: its sums cover itself, its files and the
// subdirectories complete by then), and OnNode is called no more.
func (w *Walker) Walk(ctx context.Context, path string) (*Node, error) {
	if w.opts.Exclude != nil && w.opts.Exclude(path) {
		return nil, ctx.Err()
	}
	follow := w.opts.FollowOperands || w.opts.FollowAll
	lmode := w.opts.Time
	if follow {
		lmode |= bulk.Follow
	}
	rec, err := bulk.Lstat(sys.AT_FDCWD, path, lmode)
	if err != nil {
		w.fail("access", path, danglingErr(sys.AT_FDCWD, path, follow, err))
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
		w.after.files.Add(1) // (Stats: a file operand is one of the files)
		w.after.blocks.Add(t.Blocks)
		n := &Node{Name: path, Totals: t, Own: t, Type: rec.Type, Dev: rec.Dev, Ino: rec.Ino}
		w.emit(path, n)
		if w.opts.Stream != nil {
			w.opts.Stream(path, n)
		}
		return n, ctx.Err()
	}

	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(w.opts.Jobs) // the walk's slots (scan.live) bound it first
	sc := &scan{w: w, ctx: gctx, g: g, rootDev: rec.Dev, follow: follow,
		links: linkTable{dev: rec.Dev}}
	sc.startPace()
	sc.procs.Store(int32(runtime.GOMAXPROCS(0)))
	if !w.opts.ListFiles && !w.checkAll.Load() {
		sc.mode = bulk.Fold
	}
	if w.opts.OneFileSystem && bulk.MountPointsShowCovered {
		sc.mode |= bulk.DirStat
	}
	if w.opts.FollowAll {
		sc.mode |= bulk.Follow
		sc.pathMax = sys.PathMax
	}
	if w.opts.Exclude != nil {
		sc.mode &^= bulk.Fold // every name must be matched
	}
	sc.mode |= w.opts.Time
	// The subtree walk folds every plain file and follows nothing.
	sc.subtrees = subtreeWalk && sc.mode&^w.opts.Time == bulk.Fold && !w.opts.HashAll
	// Only the operand reported, which of a file's links counts changes
	// no figure but its own (-S), and, under -L, no figure but the
	// messages' paths and what --exclude matches: there the first path in
	// du's order counts (the ordered walk).
	sc.linksNow = w.opts.MaxDepth == 0 && !w.opts.ListFiles && !w.opts.SeparateDirs && !w.ordered()
	sc.subtreeMode = w.opts.Time
	if w.opts.OneFileSystem {
		sc.subtreeMode |= bulk.TreeOneFS
	}
	if w.opts.CountLinks {
		sc.subtreeMode |= bulk.TreeAllLinks
	}
	if sc.linksNow {
		sc.subtreeMode |= bulk.TreeLinkIDs // countTreeLinks needs no name
	}
	root := newDir(nil, path, 0, &rec)
	root.node = &Node{Name: path, IsDir: true, Type: bulk.Directory, Dev: rec.Dev, Ino: rec.Ino}
	if w.opts.Details {
		root.node.Detail = &Detail{Self: entryTotals(&rec), Dev: rec.Dev}
	}
	root.fd = new(descriptor)
	root.fd.hold(1)
	if w.opts.Stream != nil {
		sc.em = &emitter{sc: sc, stack: []frame{{d: root, end: len(path)}}, dirs: []byte(path)}
		sc.gate.L = &sc.stackMu
		// A walk ended by the caller waits for nothing (scan.pop tests
		// gctx, ended with ctx). Not on gctx, which g.Wait ends too: the
		// call would keep the walk alive after it.
		defer context.AfterFunc(ctx, func() {
			<-gctx.Done()
			sc.em.wake()
		})()
		defer sc.em.spill.close()
		root.stream()
		sc.ordered = w.ordered()
		// Only the operand reported, its links counted as met: nothing
		// waits on du's order, and a plain stack costs no comparisons.
		sc.heap = !sc.linksNow
	}

	// Out of descriptors at the operand, nothing of this walk holds one
	// to shed: openScarce waits a little for those the rest of the
	// process may close (fewTries), or not at all once operands found
	// none (Walker.operandsHopeless).
	var fd int
	err = sc.openScarce(root, func(int) (bool, error) {
		fd, err = sc.openOperand(path)
		return fd >= 0, err
	})
	if err == nil {
		// What is walked is what was opened, which a rename above the
		// operand (a directory swapped for a symlink) may have made another
		// directory than the one examined: a path opened anew later must
		// lead to this one (sameDir). (An automount point, examined
		// unmounted, is the mounted directory once open.)
		if dev, ino, ok := dirID(fd); ok {
			root.dev, root.ino = dev, ino
		}
	}
	if err != nil {
		w.fail("read directory", path, err)
		w.after.dirs.Add(1) // (Stats: reported, as an unreadable subdirectory is)
		w.after.blocks.Add(entryTotals(&rec).Blocks)
		if root.node != nil && root.node.Detail != nil {
			root.node.Detail.ReadError = true
		}
		if sc.em != nil {
			sc.streamListed(root)
		}
		sc.partDone(root) // its own size still counts
		return root.node, ctx.Err()
	}
	// The operand is read on the caller's goroutine, which is one of the
	// walk's Jobs workers: the group starts the others (TryGo) while
	// there is work for them, and none at all for a small tree, where
	// handing the first directory to a new goroutine and waiting for it
	// cost more than reading it.
	// Once it finds the stack empty, its slot goes to the next worker
	// started.
	wk := w.getWorker()
	sc.live.Running.Add(1)
	sc.visitChain(wk, root, fd)
	if !sc.work(wk) {
		sc.stopped()
	}
	w.putWorker(wk)
	g.Wait()
	w.workMu.Lock()
	for _, wk := range w.idle { // (those of other walks at once are busy)
		wk.anc.reset() // keeps none of this walk's directories alive
		wk.rd.Sample(nil)
	}
	w.workMu.Unlock()
	if err := ctx.Err(); err != nil {
		if sc.em != nil {
			// The operand's sums so far, unless the stream handed it out:
			// itself, its files and the subdirectories complete, with the
			// hard links the emitter charged in those it handed out and
			// in the operand itself (the stream hands out nothing more).
			if len(sc.em.stack) > 0 {
				t, own := root.sub.load(), root.own.load()
				t.addSum(root.st.extra)
				own.addSum(root.st.extraOwn)
				root.node.Totals, root.node.Own = t, own
			}
			return root.node, err
		}
		sc.chargeLinks()
		return root.node, err // what was read before the end
	}
	if sc.em != nil {
		sc.em.kick() // every entry is complete: hands out the rest
		return root.node, nil
	}
	sc.chargeLinks()
	if root.node != nil && ctx.Err() == nil {
		w.emit(path, root.node) // its final figures (partDone)
	}
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

// subtreeBudgetMin is the least budget of a subtree walk, and subtreeWalk
// whether walks use it at all: variables for tests.
var (
	subtreeBudgetMin = 256
	subtreeWalk      = bulk.CanTree
)
