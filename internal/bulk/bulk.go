// Package bulk reads one directory at a time, as few kernel crossings as the
// operating system allows: on Linux getdents64 plus one statx per entry
// relative to the directory's fd, on macOS the getattrlistbulk(2) loop, which
// returns the names and attributes of a whole directory per call.
//
// The package owns the kernel loops and nothing else: it knows no paths
// (directories are opened relative to their parent's descriptor) and keeps
// no tree of what it read. A Reader is one worker's set of reusable
// buffers; a Dir is the state of one directory being read. On Linux the
// subtree walk (Reader.Tree, tree.go) reads the subtree below a read
// directory in one call, up to a budget of entries, and hands back sums
// per directory, the hard links it met and the directories it left; what
// to make of them is the caller's. Each Reader.Read is one call into the
// core (a single cgo call in the default build) that fills the Reader's
// buffers with fixed-size Records and a names arena, so reading a directory
// allocates nothing per entry. When the buffers fill, the Batch says More and
// Read is called again on the same Dir; a directory is whole only once a
// Batch comes back without More.
//
// In fold mode (du's summary output), plain files (not directories, one link,
// on the directory's device, examined without error) are not returned one by
// one: the core adds them to Batch.Folded. Only subdirectories, hard-linked
// files, entries on another device and entries in error reach the caller.
//
// Build variants: with cgo (the default) the loop runs in C (csrc/); with the
// build tag purego, or without cgo, the same syscalls are made from Go
// through golang.org/x/sys/unix. Both return the same Records. The other
// Unixes have the portable reader (ReadDirent + fstatat, in Go; on Linux
// under the build tag godu_portable), Windows its own (a directory
// listing that carries each entry's allocation size).
package bulk

import "syscall"

// Type is the kind of a directory entry.
type Type uint8

// Entry types; the values are shared with csrc/bulk.h.
const (
	Unknown   Type = 0
	Regular   Type = 1
	Directory Type = 2
	Symlink   Type = 3
	Other     Type = 4 // fifo, socket, device
)

// Record flags, shared with csrc/bulk.h. FlagDataless is set by the darwin
// readers for what it may be worth to a caller; nothing in godu reads it.
const (
	FlagDataless = 0x1 // macOS: the file's contents are evicted (SF_DATALESS)
	FlagFirmlink = 0x2 // macOS: the directory is a firmlink
)

// Record is one directory entry as the core reports it. Its layout is the C
// struct godu_rec (72 bytes); do not reorder.
type Record struct {
	Ino     uint64
	Dev     uint64
	Blocks  int64 // allocated size in 512-byte units, as st_blocks
	Size    int64 // st_size
	Nlink   uint32
	NameOff uint32 // offset of the name in the batch's names arena
	NameLen uint32
	Errno   int32 // errno when the entry could not be examined, else 0
	Type    Type
	Flags   uint8
	_       [6]byte
	Tsec    int64 // with ATime, MTime or CTime: that time
	Tnsec   int64
}

// Err is the error met examining the entry, or nil.
func (r *Record) Err() error {
	if r.Errno == 0 {
		return nil
	}
	return syscall.Errno(r.Errno)
}

// Mode selects what a read returns.
type Mode uint32

// Modes, shared with csrc/bulk.h.
const (
	// Fold adds plain files to Batch.Folded instead of returning them.
	Fold Mode = 0x1
	// NamesOnly lists names and d_type without examining entries; the
	// records are examined later by Reader.Stat (where CanSplit).
	NamesOnly Mode = 0x2
	// DirStat reports the opened directory's own device (Dir.Dev), for
	// systems whose entry records show a mount point's covered directory.
	DirStat Mode = 0x4
	// Follow examines and opens the targets of symlinks (du -L).
	Follow Mode = 0x8
	// ATime, MTime and CTime report that time in Record.Tsec/Tnsec and
	// the latest among folded files in Sum.TMax (du --time).
	ATime Mode = 0x10
	MTime Mode = 0x20
	CTime Mode = 0x40
	times      = ATime | MTime | CTime
)

// ctl mirrors the C struct godu_ctl: the state of one directory being read.
type ctl struct {
	fd        int32
	flags     uint32
	dpos      uint32
	dlen      uint32
	recCap    uint32
	namesCap  uint32
	dbufCap   uint32
	nrecs     uint32
	namesLen  uint32
	err       int32
	eof       uint32
	more      uint32
	foldDev   uint64
	sumBlocks int64
	sumSize   int64
	sumCount  uint64
	dirDev    uint64
	tmaxSec   int64
	tmaxNsec  int64
	aux       uint64
	dcount    uint32
	_         uint32
}

// Sum is what a read folded: the plain files it did not return one by one.
type Sum struct {
	Blocks int64  // st_blocks, 512-byte units
	Size   int64  // st_size of regular files and symlinks
	Count  uint64 // number of files
	// TMax is the latest time among them (with ATime, MTime or CTime),
	// as seconds and nanoseconds; math.MinInt64 seconds when none.
	TMaxSec, TMaxNsec int64
}

func (c *ctl) sum() Sum {
	return Sum{Blocks: c.sumBlocks, Size: c.sumSize, Count: c.sumCount, TMaxSec: c.tmaxSec, TMaxNsec: c.tmaxNsec}
}

// Dir is one directory being read. The zero Dir holds no descriptor (Fd
// is -1, Close does nothing); call Open or OpenFd to use it.
type Dir struct {
	c      ctl
	parent int
	name   string
	inUse  bool // Open or OpenFd was called: c is valid
}

// Open prepares d to read the directory name relative to the directory fd
// parent (AT_FDCWD for the working directory). The kernel open happens in
// the first Read, inside the same call that reads the first entries. With
// Fold, files on device foldDev are folded.
func (d *Dir) Open(parent int, name string, mode Mode, foldDev uint64) {
	d.c = ctl{fd: -1, flags: uint32(mode), foldDev: foldDev}
	d.parent = parent
	d.name = name
	d.inUse = true
}

// OpenFd prepares d to read the directory already open as fd; d owns fd
// from now on and Close closes it.
func (d *Dir) OpenFd(fd int, mode Mode, foldDev uint64) {
	d.c = ctl{fd: int32(fd), flags: uint32(mode), foldDev: foldDev}
	d.parent = -1
	d.name = ""
	d.inUse = true
}

// SetMode changes what the next Reads of d return.
func (d *Dir) SetMode(mode Mode) { d.c.flags = uint32(mode) }

// Fd is the directory's open file descriptor, or -1 before the first Read
// and after a failed open. Open children relative to it.
func (d *Dir) Fd() int {
	if !d.inUse {
		return -1
	}
	return int(d.c.fd)
}

// Dev is the opened directory's st_dev, known only with DirStat.
func (d *Dir) Dev() uint64 { return d.c.dirDev }

// Close closes the directory's fd, if open, and releases what the core
// holds for it.
func (d *Dir) Close() error {
	if !d.inUse || d.c.fd < 0 && d.c.aux == 0 {
		return nil
	}
	return coreClose(&d.c)
}

// Batch is what one Read returned. Its Records and names alias the Reader's
// buffers and stay valid until the Reader's next call.
type Batch struct {
	Records []Record
	Folded  Sum
	More    bool // the directory is not finished: Read the same Dir again
	names   []byte
}

// Name is rec's name. It aliases the Reader's arena.
func (b *Batch) Name(rec *Record) []byte {
	return b.names[rec.NameOff : rec.NameOff+rec.NameLen : rec.NameOff+rec.NameLen]
}

// Buffer sizes of a Reader.
const (
	// RecordsPerBatch bounds how many records one call returns.
	RecordsPerBatch = 1024
	namesSize       = 64 << 10
)

// Reader is one worker's reusable buffers. A Reader is not safe for
// concurrent use. The kernel's buffer is the Reader's, and a Dir may have
// unread entries left in it between two Reads, so every Read of one Dir
// must go through the same Reader until the Dir is finished.
type Reader struct {
	recs  []Record
	names []byte
	dbuf  []byte
	path  []byte // NUL-terminated name scratch

	// The subtree walk's nodes and their names, made on first use (or
	// taken from treePool, tbufs the holder they came in).
	tbufs     *treeBufs
	nodes     []TreeNode
	tnames    []byte
	lnode     []int32
	nnodes    int
	tnamesLen int
	tctl      treeCtl // the subtree walk's control block
	// goTree's descriptors, child counts and stack.
	tfds   []int32
	tkids  []uint32
	tstack []uint32
	tseen  Idents // the identities met, for cycle checks
	tlive  *Live  // the caller's workers, during a subtree walk
	// A subtree walk's scratch: what one directory keeps (its
	// subdirectories and hard links) before it is committed.
	tscr      []Record
	tscrNames []byte
	waits     *Waits // the next core call is timed into it (Sample)
	// The subtree walk's hard-link records and their names.
	trecs   []Record
	tlnames []byte
	// The portable reader's names of one directory-entry buffer.
	pending []string
}

// NewReader returns a Reader with buffers sized for the running system.
func NewReader() *Reader {
	return &Reader{
		recs:  make([]Record, RecordsPerBatch),
		names: make([]byte, namesSize),
		dbuf:  make([]byte, kernelBufSize),
		path:  make([]byte, 0, 256),
	}
}

// cname returns name as a NUL-terminated byte string in r's scratch.
func (r *Reader) cname(name string) *byte {
	r.path = append(append(r.path[:0], name...), 0)
	return &r.path[0]
}

func (r *Reader) batch(d *Dir) (Batch, error) {
	b := Batch{
		Records: r.recs[:d.c.nrecs],
		Folded:  d.c.sum(),
		More:    d.c.more != 0,
		names:   r.names[:d.c.namesLen],
	}
	if d.c.err != 0 {
		return b, syscall.Errno(d.c.err)
	}
	return b, nil
}

// Read reads d's next batch. An error is the directory's own (it could not
// be opened or read); records returned before it stay valid. Errors of
// single entries are in Record.Errno.
func (r *Reader) Read(d *Dir) (Batch, error) {
	d.c.recCap = uint32(len(r.recs))
	d.c.namesCap = uint32(len(r.names))
	d.c.dbufCap = uint32(len(r.dbuf))
	var name *byte
	if d.c.fd < 0 {
		name = r.cname(d.name)
	}
	r.timed(func() { coreRead(&d.c, d.parent, name, r) })
	return r.batch(d)
}

// Adopt takes batch b, just read by from, into r, so that r may Stat it
// while from reads on: the two Readers exchange their record and name
// buffers (nothing is copied), and from reads the next batch into r's.
func (r *Reader) Adopt(from *Reader, b Batch) Batch {
	r.recs, from.recs = from.recs, r.recs
	r.names, from.names = from.names, r.names
	return b
}

// Stat examines, in place, records b that a NamesOnly Read listed from the
// directory open as dirfd, folding as Read does (files on foldDev): the
// records kept are moved to the front of b.Records, which the result's
// Records are. r only times the call (Sample): b may be any part of a
// batch, in any Reader's buffers. Several Readers may Stat batches of the
// same directory, or disjoint parts of one batch, at once: this is how a
// huge directory is spread over workers.
func (r *Reader) Stat(dirfd int, foldDev uint64, b Batch, mode Mode) Batch {
	c := ctl{flags: uint32(mode &^ NamesOnly), foldDev: foldDev, nrecs: uint32(len(b.Records))}
	r.timed(func() { coreStat(&c, dirfd, b.Records, b.names) })
	return Batch{
		Records: b.Records[:c.nrecs],
		Folded:  c.sum(),
		names:   b.names,
	}
}

// Add adds o to s: sizes as the core adds them (AddSize), the later time.
func (s *Sum) Add(o Sum) {
	s.Blocks += o.Blocks
	s.Size = AddSize(s.Size, o.Size)
	s.Count += o.Count
	later(&s.TMaxSec, &s.TMaxNsec, o.TMaxSec, o.TMaxNsec)
}

// Lstat examines the single path name relative to dirfd: mode Follow
// follows a final symlink, ATime, MTime or CTime report that time. It is
// how operands are examined, so that they carry the same device numbering
// as the entries Read returns.
func Lstat(dirfd int, name string, mode Mode) (Record, error) {
	var rec Record
	p, err := syscall.BytePtrFromString(name)
	if err != nil {
		return rec, err
	}
	if e := coreStatOne(dirfd, p, mode&(Follow|times), &rec); e != 0 {
		return rec, e
	}
	return rec, nil
}
