package bulk

// The Linux reader in Go, through golang.org/x/sys/unix. It is the core of
// the purego build and, in the cgo build, the comparison the tests and
// benchmarks hold the C core to.

import (
	"math"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// haveStatx is cleared for good on the first ENOSYS from statx.
var haveStatx atomic.Bool

func init() { haveStatx.Store(true) }

const statxMask = unix.STATX_TYPE | unix.STATX_MODE | unix.STATX_INO |
	unix.STATX_NLINK | unix.STATX_BLOCKS | unix.STATX_SIZE

func typeOfDtype(t uint8) Type {
	switch t {
	case unix.DT_REG:
		return Regular
	case unix.DT_DIR:
		return Directory
	case unix.DT_LNK:
		return Symlink
	case unix.DT_UNKNOWN:
		return Unknown
	}
	return Other
}

// statOne stats name relative to dirfd per flags (Follow, the times) into r.
func statOne(dirfd int, name *byte, flags uint32, r *Record) syscall.Errno {
	fl := unix.AT_NO_AUTOMOUNT
	if flags&uint32(Follow) == 0 {
		fl |= unix.AT_SYMLINK_NOFOLLOW
	}
	if haveStatx.Load() {
		var sx unix.Statx_t
		mask := uintptr(statxMask)
		if flags&uint32(ATime) != 0 {
			mask |= unix.STATX_ATIME
		}
		if flags&uint32(MTime) != 0 {
			mask |= unix.STATX_MTIME
		}
		if flags&uint32(CTime) != 0 {
			mask |= unix.STATX_CTIME
		}
		_, _, e := unix.Syscall6(unix.SYS_STATX, uintptr(dirfd), uintptr(unsafe.Pointer(name)),
			uintptr(fl|unix.AT_STATX_DONT_SYNC), mask, uintptr(unsafe.Pointer(&sx)), 0)
		if e == 0 {
			r.Tsec, r.Tnsec = pickTime(flags, [2]int64{sx.Atime.Sec, int64(sx.Atime.Nsec)},
				[2]int64{sx.Mtime.Sec, int64(sx.Mtime.Nsec)}, [2]int64{sx.Ctime.Sec, int64(sx.Ctime.Nsec)})
			r.Ino = sx.Ino
			r.Dev = unix.Mkdev(sx.Dev_major, sx.Dev_minor)
			r.Blocks = int64(sx.Blocks)
			r.Size = int64(sx.Size)
			r.Nlink = sx.Nlink
			r.Type = typeOfMode(uint32(sx.Mode))
			r.Errno = 0
			return 0
		}
		if e != unix.ENOSYS {
			return e
		}
		haveStatx.Store(false)
	}
	var st unix.Stat_t
	_, _, e := unix.Syscall6(unix.SYS_NEWFSTATAT, uintptr(dirfd), uintptr(unsafe.Pointer(name)),
		uintptr(unsafe.Pointer(&st)), uintptr(fl), 0, 0)
	if e != 0 {
		return e
	}
	r.Tsec, r.Tnsec = pickTime(flags, [2]int64{st.Atim.Sec, st.Atim.Nsec},
		[2]int64{st.Mtim.Sec, st.Mtim.Nsec}, [2]int64{st.Ctim.Sec, st.Ctim.Nsec})
	r.Ino = st.Ino
	r.Dev = st.Dev
	r.Blocks = st.Blocks
	r.Size = st.Size
	r.Nlink = uint32(st.Nlink)
	r.Type = typeOfMode(st.Mode)
	r.Errno = 0
	return 0
}

func examine(dirfd int, name *byte, flags uint32, r *Record) {
	dtype := r.Type
	if e := statOne(dirfd, name, flags, r); e != 0 {
		*r = Record{Ino: r.Ino, Type: dtype, Errno: int32(e), NameOff: r.NameOff, NameLen: r.NameLen}
	}
}

func goStatOne(dirfd int, name *byte, mode Mode, rec *Record) syscall.Errno {
	return statOne(dirfd, name, uint32(mode), rec)
}

// getdents is getdents64, again after EINTR; ENOENT, from a directory
// removed while open, is its end (godu_getdents).
func getdents(fd int, buf []byte) (int, error) {
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.ENOENT {
			return 0, nil
		}
		if err != unix.EINTR {
			return n, err
		}
	}
}

// dirent reads the struct linux_dirent64 at the start of d (u64 ino, s64
// off, u16 reclen, u8 type, name): its length, and its name without the
// NUL, which follows it in d.
func dirent(d []byte) (reclen int, name []byte) {
	reclen = int(*(*uint16)(unsafe.Pointer(&d[16])))
	name = d[19:reclen]
	n := 0
	for n < len(name) && name[n] != 0 {
		n++
	}
	return reclen, name[:n]
}

func goRead(c *ctl, parent int, name *byte, r *Reader) {
	reset(c)
	seen := uint32(0)
	if c.fd < 0 {
		fl := uintptr(unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC | unix.O_NOCTTY | unix.O_NONBLOCK)
		if c.flags&uint32(Follow) == 0 {
			fl |= unix.O_NOFOLLOW
		}
		fd, _, e := unix.Syscall6(unix.SYS_OPENAT, uintptr(parent), uintptr(unsafe.Pointer(name)), fl, 0, 0, 0)
		if e != 0 {
			c.err = int32(e)
			return
		}
		c.fd = int32(fd)
		c.dpos, c.dlen, c.eof = 0, 0, 0
	}
	buf := r.dbuf[:c.dbufCap]
	for {
		if c.dpos >= c.dlen {
			if c.eof != 0 {
				return
			}
			n, err := getdents(int(c.fd), buf)
			if err != nil {
				c.err = int32(err.(syscall.Errno))
				c.eof = 1
				return
			}
			if n == 0 {
				c.eof = 1
				return
			}
			c.dpos, c.dlen = 0, uint32(n)
		}
		d := buf[c.dpos:c.dlen]
		rl, nm := dirent(d)
		reclen, n := uint32(rl), len(nm)
		if isDot(nm) {
			c.dpos += reclen
			continue
		}
		if seen == c.recCap || c.nrecs == c.recCap || c.namesLen+uint32(n)+1 > c.namesCap {
			c.more = 1 // at most recCap entries a call, folded or not
			return
		}
		seen++
		rec := &r.recs[c.nrecs]
		*rec = Record{Ino: *(*uint64)(unsafe.Pointer(&d[0])), Type: typeOfDtype(d[18])}
		if c.flags&uint32(NamesOnly) == 0 {
			examine(int(c.fd), &d[19], c.flags, rec)
			if fold(c, rec) {
				c.dpos += reclen
				continue
			}
		}
		copy(r.names[c.namesLen:], d[19:19+n+1])
		rec.NameOff = c.namesLen
		rec.NameLen = uint32(n)
		c.namesLen += uint32(n) + 1
		c.nrecs++
		c.dpos += reclen
	}
}

func goStat(c *ctl, dirfd int, recs []Record, names []byte) {
	statBatch(c, recs, names, func(name *byte, rec *Record) { examine(dirfd, name, c.flags, rec) })
}

// goTree is godu_tree_walk in Go: see csrc/bulk.h. The two must agree
// record for record (TestTreeCoresAgree).
func goTree(t *treeCtl, rootfd int, anc []uint64, r *Reader) {
	linkNames := t.flags&uint32(TreeLinkIDs) == 0
	nodeCap := min(t.nodeCap, uint32(len(r.nodes)))
	if cap(r.tfds) < int(nodeCap) {
		r.tfds = make([]int32, nodeCap)
		r.tkids = make([]uint32, nodeCap)
		r.tstack = make([]uint32, nodeCap)
	}
	fds, kids, stack := r.tfds[:nodeCap], r.tkids[:nodeCap], r.tstack[:0]
	tflags := t.flags & uint32(times)
	t.nrecs, t.namesLen, t.dirs, t.files, t.blocks, t.size = 0, 0, 0, 0, 0, 0
	t.tmaxSec, t.tmaxNsec = math.MinInt64, 0
	t.linksFull = 0
	if t.nnodes > nodeCap {
		return
	}
	seen := &r.tseen
	seen.Clear()
	for i := t.nnodes; i > 0; i-- {
		fds[i-1] = -1
		stack = append(stack, i-1) // the first on top
		seen.Add(r.nodes[i-1].Dev, r.nodes[i-1].Ino)
	}
	ancs := Idents{slots: anc, n: 1}
	// O(1) unless the identity was met in the walk (then its parents are
	// looked at), as godu_tree_cycle.
	cycle := func(i int32, dev, ino uint64) bool {
		if seen.Has(dev, ino) {
			for ; i >= 0; i = r.nodes[i].Parent {
				if r.nodes[i].Ino == ino && r.nodes[i].Dev == dev {
					return true
				}
			}
		}
		return ancs.Has(dev, ino)
	}
	spent, scarce, keep := uint32(0), false, int32(-1)
	dbuf := r.dbuf[:t.dbufCap]
	for len(stack) > 0 && spent < t.budget {
		// Nearly out of node room: the rest is the caller's before a
		// directory is opened that would not fit (godu_tree_walk).
		if spent > 0 && nodeCap-t.nnodes < nodeCap/4 {
			break
		}
		// A worker is free: of what is found and not read, it gets all
		// but the directory this one goes on with (godu_tree_walk).
		if len(stack) >= 2 && spent+uint32(t.dirs) >= t.yieldMin && r.tlive.Idle() {
			break
		}
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		nd := &r.nodes[i]
		pfd := rootfd
		if nd.Parent >= 0 {
			pfd = int(fds[nd.Parent])
		}
		fd, _, e := unix.Syscall6(unix.SYS_OPENAT, uintptr(pfd), uintptr(unsafe.Pointer(&r.tnames[nd.NameOff])),
			unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_NOFOLLOW, 0, 0, 0)
		if e == unix.EMFILE || e == unix.ENFILE {
			// Out of descriptors: give back what the walk holds but the
			// failed directory's parent (godu_tree_walk).
			scarce, keep = true, nd.Parent
			break
		}
		if e != 0 {
			nd.Err = int32(e)
			continue
		}
		// The whole directory in the first half of the buffer, or the
		// caller reads it.
		n, err := getdents(int(fd), dbuf[:len(dbuf)/2])
		if err != nil {
			unix.Close(int(fd))
			continue
		}
		if n > 0 {
			more, err := getdents(int(fd), dbuf[n:])
			if err != nil {
				unix.Close(int(fd))
				continue
			}
			if more > 0 { // too big: the caller reads it, from this descriptor
				treeHand(fds, i, int(fd))
				break
			}
		}
		// Room for every subdirectory (by d_type) first: a directory is
		// left before any entry is examined rather than examined twice.
		nsub, subnames, nfile, filenames := uint32(0), uint32(0), uint32(0), uint32(0)
		ndir, nplain := uint32(0), uint32(0)
		for pos := 0; pos < n; {
			d := dbuf[pos:n]
			reclen, nm := dirent(d)
			pos += reclen
			if d[18] == unix.DT_DIR || d[18] == unix.DT_UNKNOWN {
				nsub++
				subnames += uint32(len(nm)) + 1
				if !isDot(nm) {
					ndir++
				}
			} else {
				nplain++
			}
			if d[18] != unix.DT_DIR {
				nfile++
				if linkNames {
					filenames += uint32(len(nm)) + 1
				}
			}
		}
		if nsub > nodeCap-t.nnodes || subnames > t.tnamesCap-t.tnamesLen {
			treeHand(fds, i, int(fd)) // the rest is the caller's
			break
		}
		// A few subdirectories among many files, and a worker idle: the
		// caller passes those on first (godu_tree_walk).
		if t.mixedFiles > 0 && nplain >= uint32(t.mixedFiles) && ndir > 0 && ndir <= uint32(t.mixedDirs) {
			treeHand(fds, i, int(fd))
			break
		}
		// And room for every file as a hard link once links were met
		// (godu_tree_walk).
		if t.flags&uint32(TreeAllLinks) == 0 && t.nrecs > 0 &&
			(nfile > t.recCap-t.nrecs || filenames > t.namesCap-t.namesLen) {
			treeHand(fds, i, int(fd))
			t.linksFull = 1
			break
		}
		mNodes, mTnames, mRecs, mNames := t.nnodes, t.tnamesLen, t.nrecs, t.namesLen
		var files uint64
		var blocks, size int64
		tsec, tnsec := int64(math.MinInt64), int64(0)
		ok := true
		for pos := 0; pos < n; {
			d := dbuf[pos:n]
			reclen, nm := dirent(d)
			pos += reclen
			l := len(nm)
			if isDot(nm) {
				continue
			}
			spent++
			var rec Record
			if statOne(int(fd), &d[19], tflags, &rec) != 0 {
				ok = false
				break
			}
			if t.flags&uint32(TreeOneFS) != 0 && rec.Dev != t.rootDev {
				continue
			}
			if rec.Type == Directory {
				if cycle(int32(i), rec.Dev, rec.Ino) {
					continue
				}
				if t.nnodes == nodeCap || t.tnamesLen+uint32(l)+1 > t.tnamesCap {
					ok = false
					break
				}
				r.nodes[t.nnodes] = TreeNode{Ino: rec.Ino, Dev: rec.Dev, Blocks: rec.Blocks, Size: rec.Size,
					Tsec: rec.Tsec, Tnsec: rec.Tnsec, Parent: int32(i), NameOff: t.tnamesLen, NameLen: uint32(l)}
				fds[t.nnodes] = -1
				t.nnodes++
				seen.Add(rec.Dev, rec.Ino)
				copy(r.tnames[t.tnamesLen:], d[19:19+l+1])
				t.tnamesLen += uint32(l) + 1
				continue
			}
			if rec.Nlink > 1 && t.flags&uint32(TreeAllLinks) == 0 {
				if t.nrecs == t.recCap || linkNames && t.namesLen+uint32(l)+1 > t.namesCap {
					t.linksFull = 1 // the caller grows the records
					ok = false
					break
				}
				if linkNames {
					rec.NameOff, rec.NameLen = t.namesLen, uint32(l)
					copy(r.tlnames[t.namesLen:], d[19:19+l+1])
					t.namesLen += uint32(l) + 1
				}
				r.trecs[t.nrecs] = rec
				r.lnode[t.nrecs] = int32(i)
				t.nrecs++
				continue
			}
			files++
			blocks += rec.Blocks
			if rec.Type == Regular || rec.Type == Symlink {
				size = AddSize(size, rec.Size)
			}
			later(&tsec, &tnsec, rec.Tsec, rec.Tnsec)
		}
		if !ok { // left to the caller, as if never read
			for j := mNodes; j < t.nnodes; j++ {
				seen.Remove(r.nodes[j].Dev, r.nodes[j].Ino)
			}
			t.nnodes, t.tnamesLen, t.nrecs, t.namesLen = mNodes, mTnames, mRecs, mNames
			treeHand(fds, i, int(fd))
			break
		}
		// Read: its parent's descriptor is needed for one subdirectory
		// less. A directory left (on the stack, or for an error or its
		// size) keeps its parent's open for the caller.
		if p := nd.Parent; p >= 0 {
			if kids[p]--; kids[p] == 0 {
				unix.Close(int(fds[p]))
				fds[p] = -1
			}
		}
		nd.Done = 1
		nd.Files, nd.FBlocks, nd.FSize = files, blocks, size
		nd.FTsec, nd.FTnsec = int64(math.MinInt64), 0
		if tflags != 0 {
			nd.FTsec, nd.FTnsec = tsec, tnsec
		}
		t.dirs++
		t.files += files
		t.blocks += nd.Blocks + blocks
		t.size = AddSize(t.size, size)
		if tflags != 0 {
			later(&t.tmaxSec, &t.tmaxNsec, nd.Tsec, nd.Tnsec)
			if files > 0 {
				later(&t.tmaxSec, &t.tmaxNsec, tsec, tnsec)
			}
		}
		found := t.nnodes - mNodes
		if found == 0 {
			unix.Close(int(fd))
			continue
		}
		fds[i], kids[i] = int32(fd), found
		for j := t.nnodes; j > mNodes; j-- {
			stack = append(stack, j-1)
		}
	}
	// A descriptor still open belongs to a directory whose subdirectories
	// the walk left: the caller opens them from it (TreeNode.Fd); or to
	// the one directory handed over unread, for the caller to read.
	for i := uint32(0); i < t.nnodes; i++ {
		r.nodes[i].Fd = -1
		switch {
		case fds[i] < 0:
		case scarce && int32(i) != keep:
			unix.Close(int(fds[i]))
		default:
			r.nodes[i].Fd = fds[i]
		}
	}
}

// treeHand hands directory i, open as fd but left unread, over to the
// caller, rewound (godu_tree_hand); where it cannot rewind, it closes fd
// and the caller opens the directory again.
func treeHand(fds []int32, i uint32, fd int) {
	if off, err := unix.Seek(fd, 0, 0); err != nil || off != 0 {
		unix.Close(fd)
		return
	}
	fds[i] = int32(fd)
}
