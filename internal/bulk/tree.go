package bulk

import (
	"sync"
	"sync/atomic"
)

// The subtree walk: once a directory is read, one call into the core
// reads the subtree below it, depth first, until a budget of entries is
// spent. It returns the sums of each directory it read, the hard-linked
// files it met and the directories it left for the caller; the caller
// pays nothing per directory read but what it reports. Linux has it
// (CanTree), in both builds.

// TreeNode is a subdirectory a subtree walk found. Its layout is the C
// struct godu_tnode (112 bytes); do not reorder.
type TreeNode struct {
	Ino, Dev     uint64
	Blocks, Size int64 // the directory's own st_blocks and st_size
	Tsec, Tnsec  int64 // with ATime, MTime or CTime: that time
	// Parent is the index in Tree.Nodes of the directory it was found
	// in, -1 for the walk's root.
	Parent  int32
	NameOff uint32
	NameLen uint32
	// Done is 1 when the walk read the directory (its own entry and
	// everything in it are in the Tree's sums, but for subdirectories it
	// left), 0 when the caller must read it.
	Done uint32
	// Of a read directory: the entries in it counted in the sums, but
	// for subdirectories, and their latest time (math.MinInt64 seconds
	// when none or no time was asked for).
	Files          uint64
	FBlocks, FSize int64
	FTsec, FTnsec  int64
	// Fd, of a read directory whose subdirectories the walk left
	// unopened, is its open descriptor, now the caller's to open them
	// from and to close; out of descriptors, only that of the parent of
	// the directory that failed to open. Of the one unread directory
	// (Done 0) the walk opened and ended at (too big, no room, an entry
	// that failed), it is that directory's descriptor, rewound, the
	// caller's to read it from (never opening it again) and to close. -1
	// for every other node.
	Fd int32
	// Err, of an unread directory the walk failed to open (but for want
	// of descriptors), is the errno: the caller reports it without
	// opening the directory again. 0 for every other node.
	Err int32
}

// Record is n as an entry record (type Directory).
func (n *TreeNode) Record() Record {
	return Record{Ino: n.Ino, Dev: n.Dev, Blocks: n.Blocks, Size: n.Size, Nlink: 1, Type: Directory,
		Tsec: n.Tsec, Tnsec: n.Tnsec}
}

// treeCtl mirrors the C struct godu_tree.
type treeCtl struct {
	flags     uint32
	nodeCap   uint32
	tnamesCap uint32
	recCap    uint32
	namesCap  uint32
	dbufCap   uint32
	budget    uint32
	nanc      uint32
	rootDev   uint64
	nnodes    uint32
	tnamesLen uint32
	nrecs     uint32
	namesLen  uint32
	dirs      uint64
	files     uint64
	blocks    int64
	size      int64
	tmaxSec   int64
	tmaxNsec  int64
	linksFull uint32
	// With mixedFiles > 0, a directory of 1 to mixedDirs subdirectories
	// and mixedFiles other entries or more is handed over unread.
	mixedDirs  uint16
	mixedFiles uint16
	// With a Live, the entries and directories read before the walk may
	// end for a free worker.
	yieldMin uint32
	_        uint32
}

// Live is the caller's workers as a subtree walk sees them while it
// works: how many of Jobs, the workers allowed at the moment, work
// (Running) and how many directories wait for one (Stacked). The caller
// keeps both current meanwhile; while a worker is free and no directory
// waits, a walk that found two directories or more and did not read
// them ends before its next directory, once it read YieldMin entries and
// directories, and leaves them to the caller, who hands them on to that
// worker, where the walk would read them on one thread while the others
// wait. Its layout is the C struct godu_live: the core reads it during
// the call.
type Live struct {
	Running atomic.Int32
	Stacked atomic.Int32
	Jobs    atomic.Int32 // the caller may change it during a walk
	// Spinning is 1 while a free worker waits, awake, for work and joins
	// a walk open to helpers (Help): a walk does not end for it then.
	Spinning atomic.Int32
	walk     atomic.Uint64 // the walk open to helpers (the core's), or 0
	attach   atomic.Int32  // helpers between reading walk and joining it
	_        int32
}

// Idle is godu_idle: a worker is free and no directory waits for one.
func (l *Live) Idle() bool {
	return l != nil && l.Running.Load() < l.Jobs.Load() && l.Stacked.Load() == 0
}

// YieldMin is the entries and directories a subtree walk reads before it
// may end for a free worker (Live): below it, handing the rest over costs
// more than reading it. What it costs depends on how soon the free
// worker takes what is left: when it had to be started (a thread woken),
// 64 made a comb of directories, each with an empty one beside the next,
// 3 % slower than no ending, and 256 none; with the free worker waiting
// awake (the walk's spin), 64 made random trees of small directories
// 6–8 % faster than 256, and combs 1–2 % slower (paired, 15 rounds).
var YieldMin = 64

// Tree flags beside ATime, MTime and CTime, shared with csrc/bulk.h.
const (
	// TreeOneFS leaves out entries on a device other than the root's.
	TreeOneFS Mode = 0x100
	// TreeAllLinks counts every link of a file (du -l).
	TreeAllLinks Mode = 0x200
	// TreeHandMixed ends the walk at a directory that holds 1 to
	// MixedDirs subdirectories and MixedFiles other entries or more (by
	// the types the listing gives), handed over unread as one too big
	// is: where a worker is idle, the caller examines its subdirectories
	// first and passes them on, then its files meanwhile.
	TreeHandMixed Mode = 0x400
	// TreeLinkIDs returns hard links by identity alone: their records
	// have no name (NameLen 0), and their names take no room, for a
	// caller that counts each file once and reports no link by name.
	TreeLinkIDs Mode = 0x800
)

// The directories worth passing on before their files are examined: at
// most MixedDirs subdirectories (each is then visited on its own, not in
// a subtree walk) and MixedFiles other entries or more (the work done
// meanwhile).
const (
	MixedDirs  = 16
	MixedFiles = 32
)

// Buffer sizes of a subtree walk.
const (
	// TreeNodes bounds the subdirectories one walk may find.
	TreeNodes = 512
	// Room for every node's name, whatever its length: a directory whose
	// subdirectories' names did not fit was opened, read, and left to the
	// caller, ending the walk early (with 208-byte names it was opened
	// again: 5 % more opens, before the walk handed it over open).
	treeNames = TreeNodes * 256
	// treeRecsMax bounds the hard-link records of one subtree walk (they
	// double from treeRecsMin when a walk ran out of them): past a
	// budget's worth more room saves nothing.
	treeRecsMax = 8 << 10
	// Starting smaller saved 0.8 MB of allocation over six workers, but
	// every time a walk ran out, a directory was examined twice: with
	// long names or many links, dozens (TestRandomShapes: 2,782 statx
	// for 2,717 entries).
	treeRecsMin = 1024
	// treeLinkName is the room for names per record.
	treeLinkName = namesSize / RecordsPerBatch
)

// Tree is what a subtree walk returned. Nodes and Links alias the
// Reader's buffers and stay valid until its next call.
type Tree struct {
	// Nodes are the subdirectories found; those with Done 0 are left to
	// the caller, below the nodes they were found in.
	Nodes []TreeNode
	// Links are the hard-linked files found in the directories read, and
	// LinkNodes the index in Nodes of the directory each is in.
	Links     Batch
	LinkNodes []int32
	// Dirs and Files count the entries summed: read directories and the
	// other entries in them.
	Dirs, Files uint64
	// Sum is the read directories' own sizes plus their entries'.
	Sum    Sum
	tnames []byte
}

// NodeName is n's name. It aliases the Reader's arena.
func (t *Tree) NodeName(n *TreeNode) []byte {
	return t.tnames[n.NameOff : n.NameOff+n.NameLen : n.NameOff+n.NameLen]
}

// TreeStart begins a subtree walk's list of the root's subdirectories.
func (r *Reader) TreeStart() {
	r.nnodes, r.tnamesLen = 0, 0
}

// treeBufs are a subtree walk's buffers. A Reader takes a set on its
// first subdirectory listed (a walk that meets none, an empty or flat
// operand, never pays for their 400 kB) and gives it back with PutTree,
// for the next Reader that needs one: a walk makes as many sets as
// Readers walk subtrees at once, not one per Reader (a Reader that only
// holds a listed batch while it waits to be examined walks none). The
// pool is a sync.Pool: sets no walk takes are collected.
type treeBufs struct {
	nodes     []TreeNode
	tnames    []byte
	trecs     []Record
	tlnames   []byte
	lnode     []int32
	tscr      []Record
	tscrNames []byte
}

var treePool sync.Pool // of *treeBufs

// TreeSetsMade counts the sets of subtree walk buffers made, where the
// pool had none to give: a test that measures what a walk allocates
// leaves out the walks that made one (a set put back on one P is not
// always found by a Get on another: a fixed 400 kB, whatever the walk).
var TreeSetsMade atomic.Int64

// treeBuffers takes a set of buffers from the pool, or makes one.
func (r *Reader) treeBuffers() {
	if b, _ := treePool.Get().(*treeBufs); b != nil {
		r.nodes, r.tnames, r.trecs, r.tlnames, r.lnode, r.tscr, r.tscrNames =
			b.nodes, b.tnames, b.trecs, b.tlnames, b.lnode, b.tscr, b.tscrNames
		*b = treeBufs{}
		r.tbufs = b // for the next PutTree: no allocation
		return
	}
	TreeSetsMade.Add(1)
	r.nodes = make([]TreeNode, TreeNodes)
	r.tnames = make([]byte, treeNames)
	// Room for a few hard links: it doubles, up to treeRecsMax, each time
	// a walk runs out of it.
	r.trecs = make([]Record, treeRecsMin)
	r.tlnames = make([]byte, treeRecsMin*treeLinkName)
	r.lnode = make([]int32, len(r.trecs))
	r.tscr = make([]Record, kernelBufSize/2/direntMin)
	r.tscrNames = make([]byte, kernelBufSize/2)
}

// PutTree gives r's subtree walk buffers back to the pool, unless
// subdirectories listed for a walk are waiting in them (TreeAdd). What
// r's last Tree returned is no longer valid.
func (r *Reader) PutTree() {
	if r.nodes == nil || r.nnodes != 0 {
		return
	}
	b := r.tbufs
	if b == nil {
		b = new(treeBufs)
	}
	r.tbufs = nil
	*b = treeBufs{r.nodes, r.tnames, r.trecs, r.tlnames, r.lnode, r.tscr, r.tscrNames}
	treePool.Put(b)
	r.nodes, r.tnames, r.trecs, r.tlnames, r.lnode, r.tscr, r.tscrNames = nil, nil, nil, nil, nil, nil, nil
}

// direntMin is the least room a getdents64 record takes: its header and
// a name of one byte with its NUL, padded to 8 bytes.
const direntMin = 24

// Help reads, as a helper, directories of the subtree walk open to
// helpers in live (another worker's), while it has some and the caller's
// own stack has none (live.Stacked); it reports how many it read. Where
// there is no such walk, or walks take no helpers (CanHelp), it does
// nothing.
func (r *Reader) Help(live *Live) int {
	if !CanHelp || live.walk.Load() == 0 {
		return 0
	}
	if r.nodes == nil {
		r.treeBuffers()
	}
	return coreHelp(live, r)
}

// TreeAdd adds rec, a subdirectory of the root, to the walk's list. It
// reports false, adding nothing, when the list is full.
func (r *Reader) TreeAdd(rec *Record, name []byte) bool {
	if r.nodes == nil {
		r.treeBuffers()
	}
	if r.nnodes == len(r.nodes) || r.tnamesLen+len(name)+1 > len(r.tnames) {
		return false
	}
	r.nodes[r.nnodes] = TreeNode{Ino: rec.Ino, Dev: rec.Dev, Blocks: rec.Blocks, Size: rec.Size,
		Tsec: rec.Tsec, Tnsec: rec.Tnsec, Parent: -1, NameOff: uint32(r.tnamesLen), NameLen: uint32(len(name))}
	r.tnamesLen += copy(r.tnames[r.tnamesLen:], name)
	r.tnames[r.tnamesLen] = 0
	r.tnamesLen++
	r.nnodes++
	return true
}

// TreeLen is the number of subdirectories listed since TreeStart.
func (r *Reader) TreeLen() int { return r.nnodes }

// Tree walks the subdirectories listed since TreeStart, found in the
// directory open as rootfd, examining at most budget entries. anc holds
// the identities of the root and the directories above it (nil: none): a
// subdirectory that is one of them, or one of the nodes above it, is left
// out (a bind mount of an ancestor); each check is O(1) on any depth.
// mode may hold ATime, MTime or CTime, TreeOneFS (then entries off rootDev are left out), TreeAllLinks
// and TreeHandMixed.
// With live, the walk may end early for a free worker (Live).
func (r *Reader) Tree(rootfd int, rootDev uint64, anc *Idents, budget int, mode Mode, live *Live) Tree {
	r.tlive = live
	defer func() { r.tlive = nil }()
	return r.treeCall(coreTree, rootfd, rootDev, anc, budget, mode)
}

func (r *Reader) treeCall(walk func(*treeCtl, int, []uint64, *Reader), rootfd int, rootDev uint64, anc *Idents,
	budget int, mode Mode) Tree {
	if r.nodes == nil {
		r.treeBuffers()
	}
	var slots []uint64
	if anc != nil && anc.n > 0 {
		slots = anc.slots
	}
	// The control block lives in the Reader: passed to walk, a func value,
	// a local would escape, one allocation per subtree walk.
	t := &r.tctl
	*t = treeCtl{
		flags: uint32(mode & (times | TreeOneFS | TreeAllLinks | TreeLinkIDs)), nodeCap: uint32(len(r.nodes)),
		tnamesCap: uint32(len(r.tnames)), recCap: uint32(len(r.trecs)), namesCap: uint32(len(r.tlnames)),
		dbufCap: uint32(len(r.dbuf)), budget: uint32(min(budget, 1<<30)), nanc: uint32(len(slots) / 3),
		rootDev: rootDev, nnodes: uint32(r.nnodes), tnamesLen: uint32(r.tnamesLen),
		yieldMin: uint32(max(YieldMin, 1)),
	}
	if mode&TreeHandMixed != 0 {
		t.mixedDirs, t.mixedFiles = MixedDirs, MixedFiles
	}
	r.timed(func() { walk(t, rootfd, slots, r) })
	r.nnodes = 0
	tr := Tree{
		Nodes:     r.nodes[:t.nnodes],
		Links:     Batch{Records: r.trecs[:t.nrecs], names: r.tlnames[:t.namesLen]},
		LinkNodes: r.lnode[:t.nrecs],
		Dirs:      t.dirs, Files: t.files,
		Sum:    Sum{Blocks: t.blocks, Size: t.size, Count: t.dirs + t.files, TMaxSec: t.tmaxSec, TMaxNsec: t.tmaxNsec},
		tnames: r.tnames[:t.tnamesLen],
	}
	if t.linksFull != 0 && len(r.trecs) < treeRecsMax {
		// Room for twice the links next time (the records returned stay
		// valid: new buffers).
		r.trecs = make([]Record, 2*len(r.trecs))
		r.tlnames = make([]byte, 2*len(r.tlnames))
		r.lnode = make([]int32, len(r.trecs))
	}
	return tr
}
