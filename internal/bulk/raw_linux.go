package bulk

// The Linux reader in Go, through golang.org/x/sys/unix. It is the core of
// the purego build and, in the cgo build, the comparison the tests and
// benchmarks hold the C core to.

import (
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

func statOne(dirfd int, name *byte, follow bool, r *Record) syscall.Errno {
	fl := unix.AT_NO_AUTOMOUNT
	if !follow {
		fl |= unix.AT_SYMLINK_NOFOLLOW
	}
	if haveStatx.Load() {
		var sx unix.Statx_t
		_, _, e := unix.Syscall6(unix.SYS_STATX, uintptr(dirfd), uintptr(unsafe.Pointer(name)),
			uintptr(fl|unix.AT_STATX_DONT_SYNC), statxMask, uintptr(unsafe.Pointer(&sx)), 0)
		if e == 0 {
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
	r.Ino = st.Ino
	r.Dev = st.Dev
	r.Blocks = st.Blocks
	r.Size = st.Size
	r.Nlink = uint32(st.Nlink)
	r.Type = typeOfMode(st.Mode)
	r.Errno = 0
	return 0
}

func examine(dirfd int, name *byte, r *Record) {
	dtype := r.Type
	if e := statOne(dirfd, name, false, r); e != 0 {
		*r = Record{Ino: r.Ino, Type: dtype, Errno: int32(e)}
	}
}

func goStatOne(dirfd int, name *byte, follow bool, rec *Record) syscall.Errno {
	return statOne(dirfd, name, follow, rec)
}

func goRead(c *ctl, parent int, name *byte, r *Reader) {
	c.nrecs, c.namesLen, c.more, c.err = 0, 0, 0, 0
	c.sumBlocks, c.sumSize, c.sumCount = 0, 0, 0
	if c.fd < 0 {
		fd, _, e := unix.Syscall6(unix.SYS_OPENAT, uintptr(parent), uintptr(unsafe.Pointer(name)),
			unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NOCTTY|unix.O_NONBLOCK, 0, 0, 0)
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
			n, err := unix.Getdents(int(c.fd), buf)
			if err != nil {
				if err == unix.EINTR {
					continue
				}
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
		// struct linux_dirent64: u64 ino, s64 off, u16 reclen, u8 type, name.
		d := buf[c.dpos:c.dlen]
		reclen := uint32(*(*uint16)(unsafe.Pointer(&d[16])))
		nm := d[19:reclen]
		n := 0
		for n < len(nm) && nm[n] != 0 {
			n++
		}
		nm = nm[:n]
		if nm[0] == '.' && (n == 1 || (n == 2 && nm[1] == '.')) {
			c.dpos += reclen
			continue
		}
		if c.nrecs == c.recCap || c.namesLen+uint32(n)+1 > c.namesCap {
			c.more = 1
			return
		}
		rec := &r.recs[c.nrecs]
		*rec = Record{Ino: *(*uint64)(unsafe.Pointer(&d[0])), Type: typeOfDtype(d[18])}
		if c.flags&uint32(NamesOnly) == 0 {
			examine(int(c.fd), &d[19], rec)
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

func goStat(c *ctl, dirfd int, r *Reader) {
	kept := uint32(0)
	for i := uint32(0); i < c.nrecs; i++ {
		rec := r.recs[i]
		examine(dirfd, &r.names[rec.NameOff], &rec)
		if fold(c, &rec) {
			continue
		}
		r.recs[kept] = rec
		kept++
	}
	c.nrecs = kept
}

func goClose(c *ctl) error {
	err := syscall.Close(int(c.fd))
	c.fd = -1
	return err
}
