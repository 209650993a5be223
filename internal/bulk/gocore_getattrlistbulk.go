//go:build (darwin || godu_xnu) && (!cgo || purego)

package bulk

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Variant names the build: "cgo" or "purego".
const Variant = "purego"

// The darwin reader in Go: getattrlistbulk(2) through x/sys's Syscall6
// (never RawSyscall6: a slow directory read must not hold a P), records
// parsed by parseAttr. It mirrors csrc/bulk_darwin.c. Its system calls go
// through sys_darwin.go (on Linux, the godu_xnu build's emulation).

const fallbackFlag = 0x100 // the volume needs the per-entry reader

type attrlist struct {
	bitmapcount uint16
	reserved    uint16
	commonattr  uint32
	volattr     uint32
	dirattr     uint32
	fileattr    uint32
	forkattr    uint32
}

// tuneProcess turns off the download of dataless (cloud-evicted) files for
// the whole process, as macOS's du does:
func tuneProcess() {
	// setiopolicy_np(IOPOL_TYPE_VFS_MATERIALIZE_DATALESS_FILES,
	// IOPOL_SCOPE_PROCESS, IOPOL_MATERIALIZE_DATALESS_FILES_OFF) is
	// iopolicysys(IOPOL_CMD_SET, {scope, type, policy}).
	syscall3(sysIopolicysys, 1, uintptr(unsafe.Pointer(&materializeOff)), 0)
}

// materializeOff is iopolicysys's argument: {scope, type, policy}. It and
// goduAttrlist live in no stack, as the system-call variables' arguments
// must (they pass as plain integers).
var materializeOff = [3]int32{0, 3, 1}

// goduAttrlist is godu's request as the kernel reads it.
var goduAttrlist = attrlist{bitmapcount: 5, commonattr: goduReq.common, dirattr: goduReq.dir, fileattr: goduReq.file}

func fromStat(st *statT, flags uint32, r *Record) {
	*r = Record{Ino: st.Ino, Dev: uint64(uint32(st.Dev)), Blocks: st.Blocks, Size: st.Size,
		Nlink: uint32(st.Nlink), Type: typeOfMode(uint32(st.Mode))}
	r.Tsec, r.Tnsec = pickTime(flags, [2]int64{st.Atim.Sec, st.Atim.Nsec},
		[2]int64{st.Mtim.Sec, st.Mtim.Nsec}, [2]int64{st.Ctim.Sec, st.Ctim.Nsec})
	if st.Flags&sfDataless != 0 {
		r.Flags |= FlagDataless
	}
	if r.Type == Directory && st.Flags&sfFirmlink != 0 {
		r.Flags |= FlagFirmlink
	}
}

func cstring(p *byte) string {
	n := 0
	for *(*byte)(unsafe.Add(unsafe.Pointer(p), n)) != 0 {
		n++
	}
	return string(unsafe.Slice(p, n))
}

func coreStatOne(dirfd int, name *byte, mode Mode, rec *Record) syscall.Errno {
	var st statT
	fl := 0
	if mode&Follow == 0 {
		fl = unix.AT_SYMLINK_NOFOLLOW
	}
	if err := fstatat(dirfd, cstring(name), &st, fl); err != nil {
		return err.(syscall.Errno)
	}
	fromStat(&st, uint32(mode), rec)
	return 0
}

// refine completes a parsed record with a symlink's target (Follow) or
// times, by one fstatat, as csrc's godu_refine.
func refine(c *ctl, name []byte, r *Record) {
	follow := c.flags&uint32(Follow) != 0
	if r.Errno != 0 || !(follow && r.Type == Symlink || c.flags&uint32(times) != 0) {
		return
	}
	fl := 0
	if !follow {
		fl = unix.AT_SYMLINK_NOFOLLOW
	}
	var st statT
	if err := fstatat(int(c.fd), string(name), &st, fl); err != nil {
		r.Errno = int32(err.(syscall.Errno))
		return
	}
	fromStat(&st, c.flags, r)
}

func put(c *ctl, r *Reader, rec *Record, name []byte) bool {
	if c.nrecs == c.recCap || c.namesLen+uint32(len(name))+1 > c.namesCap {
		return false
	}
	out := &r.recs[c.nrecs]
	*out = *rec
	copy(r.names[c.namesLen:], name)
	r.names[c.namesLen+uint32(len(name))] = 0
	out.NameOff, out.NameLen = c.namesLen, uint32(len(name))
	c.namesLen += uint32(len(name)) + 1
	c.nrecs++
	return true
}

func coreRead(c *ctl, parent int, name *byte, r *Reader) {
	reset(c)
	if c.fd < 0 {
		fl := unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC
		if c.flags&uint32(Follow) == 0 {
			fl |= unix.O_NOFOLLOW
		}
		fd, err := unix.Openat(parent, cstring(name), fl, 0)
		if err != nil {
			c.err = int32(err.(syscall.Errno))
			return
		}
		c.fd = int32(fd)
		c.dpos, c.dlen, c.dcount, c.eof = 0, 0, 0, 0
		if c.flags&uint32(DirStat) != 0 {
			var st statT
			if fstat(fd, &st) == nil {
				c.dirDev = uint64(uint32(st.Dev))
			}
		}
	}
	if c.flags&fallbackFlag != 0 {
		readFallback(c, r)
		return
	}
	for {
		if c.dcount == 0 {
			if c.eof != 0 {
				return
			}
			n, _, e := syscall6(sysGetattrlistbulk, uintptr(c.fd), uintptr(unsafe.Pointer(&goduAttrlist)),
				uintptr(unsafe.Pointer(&r.dbuf[0])), uintptr(c.dbufCap), uintptr(goduReq.options), 0)
			if e != 0 {
				if e == unix.EINTR {
					continue
				}
				if (e == unix.ENOTSUP || e == unix.EINVAL || e == unix.EACCES) && c.dlen == 0 {
					// Never worked on this volume, or a directory that
					// may be read but not searched: per entry instead.
					c.flags |= fallbackFlag
					readFallback(c, r)
					return
				}
				var st statT
				if e == unix.ENOENT && fstat(int(c.fd), &st) == nil && st.Nlink == 0 {
					c.eof = 1 // removed while open: its end, as readdir has it
					return
				}
				c.err, c.eof = int32(e), 1
				return
			}
			if n == 0 {
				c.eof = 1
				return
			}
			c.dpos, c.dlen, c.dcount = 0, c.dbufCap, uint32(n)
		}
		rec, nm, n, ok := parseAttr(r.dbuf[c.dpos:c.dlen], &goduReq, c.foldDev)
		if !ok {
			c.err, c.eof, c.dcount = int32(unix.EBADMSG), 1, 0
			return
		}
		if c.flags&uint32(Follow|times) != 0 {
			refine(c, nm, &rec)
		}
		if !fold(c, &rec) && !put(c, r, &rec, nm) {
			c.more = 1
			return
		}
		c.dpos += uint32(n)
		c.dcount--
	}
}

// readFallback lists the directory with getdirentries and examines each
// entry with fstatat, for volumes where getattrlistbulk is not supported.
func readFallback(c *ctl, r *Reader) {
	for {
		if c.dpos >= c.dlen {
			if c.eof != 0 {
				return
			}
			n, err := readDirent(int(c.fd), r.dbuf[:c.dbufCap])
			if err == unix.ENOENT { // removed while open: its end
				n, err = 0, nil
			}
			if err != nil {
				c.err, c.eof = int32(err.(syscall.Errno)), 1
				return
			}
			if n == 0 {
				c.eof = 1
				return
			}
			c.dpos, c.dlen = 0, uint32(n)
		}
		// struct dirent (64-bit inodes): u64 ino, u64 seekoff, u16 reclen,
		// u16 namlen, u8 type, name.
		d := r.dbuf[c.dpos:c.dlen]
		if len(d) < 21 {
			c.dpos = c.dlen
			continue
		}
		reclen := uint32(*(*uint16)(unsafe.Pointer(&d[16])))
		namlen := int(*(*uint16)(unsafe.Pointer(&d[18])))
		if reclen == 0 || int(reclen) > len(d) || 21+namlen > int(reclen) {
			c.err, c.eof = int32(unix.EBADMSG), 1
			return
		}
		nm := d[21 : 21+namlen]
		if isDot(nm) {
			c.dpos += reclen
			continue
		}
		if c.nrecs == c.recCap || c.namesLen+uint32(namlen)+1 > c.namesCap {
			c.more = 1
			return
		}
		var rec Record
		var st statT
		fl := unix.AT_SYMLINK_NOFOLLOW
		if c.flags&uint32(Follow) != 0 {
			fl = 0
		}
		if err := fstatat(int(c.fd), string(nm), &st, fl); err == nil {
			fromStat(&st, c.flags, &rec)
		} else {
			rec.Errno = int32(err.(syscall.Errno))
		}
		if !fold(c, &rec) {
			put(c, r, &rec, nm)
		}
		c.dpos += reclen
	}
}

func coreStat(c *ctl, dirfd int, recs []Record, names []byte) {
	statBatch(c, recs, names, func(name *byte, rec *Record) {
		if e := coreStatOne(dirfd, name, Mode(c.flags), rec); e != 0 {
			rec.Errno = int32(e)
		}
	})
}

func coreClose(c *ctl) error { return closeCtl(c) }
