//go:build (linux && godu_portable) || freebsd || openbsd || netbsd || dragonfly || illumos || solaris

package bulk

// The portable Unix reader, in Go through golang.org/x/sys/unix: a
// directory's names by ReadDirent (getdirentries or getdents, whichever
// the system has), each entry examined by fstatat relative to the
// directory's descriptor without following a symlink (unless Follow), and
// subdirectories opened by openat from their parent's descriptor with
// O_DIRECTORY|O_NOFOLLOW. It is the reader of the BSDs, illumos and
// Solaris; on Linux it runs under the build tag godu_portable, where the
// tests hold it to GNU du.

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Variant names the build.
const Variant = "portable"

// kernelBufSize is the directory-entry buffer of one ReadDirent.
const kernelBufSize = 32 << 10

// CanSplit reports whether a directory's names can be listed first and
// examined later by several Readers at once (Reader.Stat).
const CanSplit = true

// MountPointsShowCovered reports whether a mount point's directory record
// describes the covered directory rather than the mounted volume's root,
// so that only opening it (Mode DirStat) tells its device.
const MountPointsShowCovered = false

func coreRead(c *ctl, parent int, name *byte, r *Reader) { portRead(c, parent, name, r) }
func coreStat(c *ctl, dirfd int, recs []Record, names []byte) {
	statBatch(c, recs, names, func(name *byte, rec *Record) {
		portExamine(dirfd, unsafe.String(name, rec.NameLen), c.flags, rec)
	})
}
func coreClose(c *ctl) error { return closeCtl(c) }
func coreStatOne(dirfd int, name *byte, mode Mode, rec *Record) syscall.Errno {
	return portStat(dirfd, unix.BytePtrToString(name), uint32(mode), rec)
}

// statRecord fills r from st, as the Linux core fills it from statx.
func statRecord(st *unix.Stat_t, flags uint32, r *Record) {
	r.Tsec, r.Tnsec = pickTime(flags,
		[2]int64{int64(st.Atim.Sec), int64(st.Atim.Nsec)},
		[2]int64{int64(st.Mtim.Sec), int64(st.Mtim.Nsec)},
		[2]int64{int64(st.Ctim.Sec), int64(st.Ctim.Nsec)})
	r.Ino = uint64(st.Ino)
	r.Dev = uint64(st.Dev)
	r.Blocks = int64(st.Blocks)
	r.Size = int64(st.Size)
	r.Nlink = uint32(st.Nlink)
	r.Type = typeOfMode(uint32(st.Mode))
	r.Errno = 0
}

// portStat examines name relative to dirfd per flags (Follow, the times).
func portStat(dirfd int, name string, flags uint32, r *Record) syscall.Errno {
	fl := unix.AT_SYMLINK_NOFOLLOW
	if flags&uint32(Follow) != 0 {
		fl = 0
	}
	var st unix.Stat_t
	for {
		err := unix.Fstatat(dirfd, name, &st, fl)
		if err == nil {
			break
		}
		if err != unix.EINTR {
			return errnoOf(err)
		}
	}
	statRecord(&st, flags, r)
	return 0
}

// portExamine examines one listed entry; on error the record keeps its
// name and carries the errno.
func portExamine(dirfd int, name string, flags uint32, r *Record) {
	if e := portStat(dirfd, name, flags, r); e != 0 {
		*r = Record{Ino: r.Ino, Type: r.Type, Errno: int32(e), NameOff: r.NameOff, NameLen: r.NameLen}
	}
}

// readDirent is ReadDirent, again after EINTR; ENOENT, from a directory
// removed while open (Linux), is its end, as the C library's readdir has
// it.
func readDirent(fd int, buf []byte) (int, error) {
	for {
		n, err := unix.ReadDirent(fd, buf)
		if err == unix.ENOENT {
			return 0, nil
		}
		if err != unix.EINTR {
			return n, err
		}
	}
}

// portRead reads the next batch of the directory of c. The names of one
// ReadDirent buffer wait in r.pending (c.dpos of c.dlen taken) until
// they are all returned, which is why a Dir is read through one Reader.
func portRead(c *ctl, parent int, name *byte, r *Reader) {
	reset(c)
	if c.fd < 0 {
		fl := unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC | unix.O_NOCTTY | unix.O_NONBLOCK
		if c.flags&uint32(Follow) == 0 {
			fl |= unix.O_NOFOLLOW
		}
		var fd int
		var err error
		for {
			fd, err = unix.Openat(parent, unix.BytePtrToString(name), fl, 0)
			if err != unix.EINTR {
				break
			}
		}
		if err != nil {
			c.err = int32(errnoOf(err))
			return
		}
		c.fd = int32(fd)
		c.dpos, c.dlen, c.eof = 0, 0, 0
		r.pending = r.pending[:0]
		if c.flags&uint32(DirStat) != 0 {
			var st unix.Stat_t
			if unix.Fstat(fd, &st) == nil {
				c.dirDev = uint64(st.Dev)
			}
		}
	}
	buf := r.dbuf[:c.dbufCap]
	seen := uint32(0)
	for {
		if c.dpos >= c.dlen {
			if c.eof != 0 {
				return
			}
			n, err := readDirent(int(c.fd), buf)
			if err != nil {
				c.err = int32(errnoOf(err))
				c.eof = 1
				return
			}
			if n <= 0 {
				c.eof = 1
				return
			}
			// ParseDirent leaves out "." and ".." and deleted slots.
			_, _, r.pending = unix.ParseDirent(buf[:n], -1, r.pending[:0])
			c.dpos, c.dlen = 0, uint32(len(r.pending))
			continue
		}
		nm := r.pending[c.dpos]
		n := uint32(len(nm))
		if seen == c.recCap || c.nrecs == c.recCap || c.namesLen+n+1 > c.namesCap {
			c.more = 1 // at most recCap entries a call, folded or not
			return
		}
		seen++
		rec := &r.recs[c.nrecs]
		*rec = Record{}
		if c.flags&uint32(NamesOnly) == 0 {
			portExamine(int(c.fd), nm, c.flags, rec)
			if fold(c, rec) {
				c.dpos++
				continue
			}
		}
		copy(r.names[c.namesLen:], nm)
		r.names[c.namesLen+n] = 0
		rec.NameOff = c.namesLen
		rec.NameLen = n
		c.namesLen += n + 1
		c.nrecs++
		c.dpos++
	}
}
