package xnu

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Attrlist is the SDK's struct attrlist (24 bytes).
type Attrlist struct {
	Bitmapcount uint16
	Reserved    uint16
	Commonattr  uint32
	Volattr     uint32
	Dirattr     uint32
	Fileattr    uint32
	Forkattr    uint32
}

// Timespec is darwin's struct timespec.
type Timespec struct{ Sec, Nsec int64 }

// Stat is darwin's struct stat (64-bit inodes, 144 bytes), the layout of
// x/sys/unix's darwin Stat_t and of the shim's struct stat.
type Stat struct {
	Dev     int32
	Mode    uint16
	Nlink   uint16
	Ino     uint64
	Uid     uint32
	Gid     uint32
	Rdev    int32
	_       int32
	Atim    Timespec
	Mtim    Timespec
	Ctim    Timespec
	Btim    Timespec
	Size    int64
	Blocks  int64
	Blksize int32
	Flags   uint32
	Gen     uint32
	Lspare  int32
	Qspare  [2]int64
}

// dirName is the base name of the directory open as fd.
func dirName(fd int) []byte {
	p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	if err != nil {
		return nil
	}
	return []byte(filepath.Base(p))
}

// Setiopolicy is setiopolicy_np(2): the emulation records the policy.
func Setiopolicy(iotype, scope, policy int) int {
	state.Lock()
	state.policy = [3]int{iotype, scope, policy}
	state.npol++
	state.Unlock()
	return 0
}

// Policy is the last policy set and how many were set.
func Policy() (last [3]int, n int) {
	state.Lock()
	defer state.Unlock()
	return state.policy, state.npol
}

const statxMask = unix.STATX_TYPE | unix.STATX_MODE | unix.STATX_NLINK | unix.STATX_INO |
	unix.STATX_SIZE | unix.STATX_BLOCKS | unix.STATX_ATIME | unix.STATX_MTIME | unix.STATX_CTIME

// devOf is a Linux device number as darwin's dev_t (32 bits).
func devOf(major, minor uint32) uint32 { return uint32(unix.Mkdev(major, minor)) }

func objType(mode uint16) uint32 {
	switch mode & unix.S_IFMT {
	case unix.S_IFREG:
		return VREG
	case unix.S_IFDIR:
		return VDIR
	case unix.S_IFLNK:
		return VLNK
	case unix.S_IFBLK:
		return VBLK
	case unix.S_IFCHR:
		return VCHR
	case unix.S_IFSOCK:
		return VSOCK
	case unix.S_IFIFO:
		return VFIFO
	}
	return VNON
}

func flagsOf(k *Knobs, name []byte, isDir bool) uint32 {
	var f uint32
	if has(k.Dataless, name) && !isDir {
		f |= SFDataless
	}
	if has(k.Firmlink, name) && isDir {
		f |= SFFirmlink
	}
	return f
}

// Fstatat is darwin's fstatat(2) (flags are the host's AT_ values; an
// empty name is fstat of fd): st_nlink clamped to 65535, st_dev 32 bits,
// st_flags from the knobs.
func Fstatat(fd int, name []byte, flags int) (Stat, syscall.Errno) {
	var st Stat
	var sx unix.Statx_t
	fl := unix.AT_STATX_SYNC_AS_STAT
	if flags&unix.AT_SYMLINK_NOFOLLOW != 0 {
		fl |= unix.AT_SYMLINK_NOFOLLOW
	}
	path := string(name)
	if len(name) == 0 {
		fl |= unix.AT_EMPTY_PATH
	}
	if err := unix.Statx(fd, path, fl, statxMask, &sx); err != nil {
		return st, err.(syscall.Errno)
	}
	st.Dev = int32(devOf(sx.Dev_major, sx.Dev_minor))
	st.Mode = sx.Mode
	st.Nlink = uint16(min(sx.Nlink, 65535))
	st.Ino = sx.Ino
	st.Uid, st.Gid = sx.Uid, sx.Gid
	st.Rdev = int32(devOf(sx.Rdev_major, sx.Rdev_minor))
	st.Atim = Timespec{sx.Atime.Sec, int64(sx.Atime.Nsec)}
	st.Mtim = Timespec{sx.Mtime.Sec, int64(sx.Mtime.Nsec)}
	st.Ctim = Timespec{sx.Ctime.Sec, int64(sx.Ctime.Nsec)}
	st.Size = int64(sx.Size)
	st.Blocks = int64(sx.Blocks)
	st.Blksize = int32(sx.Blksize)
	if len(name) > 0 {
		k := knobs()
		st.Flags = flagsOf(&k, []byte(filepath.Base(path)), sx.Mode&unix.S_IFMT == unix.S_IFDIR)
	}
	return st, 0
}

// examine is what the file system reports of entry name (inode dino from
// the directory listing) in the directory open as dirfd, on device dirDev.
func examine(dirfd int, dirDev uint32, name []byte, dino uint64, k *Knobs) Entry {
	e := Entry{Name: name}
	var sx unix.Statx_t
	if err := unix.Statx(dirfd, string(name), unix.AT_SYMLINK_NOFOLLOW|unix.AT_STATX_SYNC_AS_STAT,
		statxMask, &sx); err != nil {
		e.Errno = uint32(err.(syscall.Errno))
		return e
	}
	e.ObjType = objType(sx.Mode)
	e.Dev = devOf(sx.Dev_major, sx.Dev_minor)
	e.Ino = sx.Ino
	e.Links = sx.Nlink
	e.Alloc = sx.Blocks * 512
	e.DataLen = sx.Size
	if e.ObjType == VDIR && sx.Attributes_mask&unix.STATX_ATTR_MOUNT_ROOT != 0 &&
		sx.Attributes&unix.STATX_ATTR_MOUNT_ROOT != 0 {
		// A mount point's record describes the covered directory: its
		// device and inode are the parent volume's (Linux lists the
		// covered inode; it hides the covered directory's sizes, so
		// those stay the mounted root's).
		e.Dev, e.Ino = dirDev, dino
	}
	e.Flags = flagsOf(k, name, e.ObjType == VDIR)
	return e
}

var scratch = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// Getattrlistbulk is getattrlistbulk(2) on the directory open as dirfd,
// as testdata/getattrlistbulk/FORMAT.md describes it: it packs into buf
// as many entries as fit, "." and ".." left out, from the directory's
// current position, which it leaves at the first entry not returned. It
// returns the number of records (error records count), 0 at the end of
// the directory, or an errno: EINVAL for a malformed request, ENOTDIR,
// EACCES when attributes beyond the name are asked of a directory that
// may not be searched, ERANGE when not one record fits, and the knobs'.
func Getattrlistbulk(dirfd int, al *Attrlist, buf []byte, options uint64) (int, syscall.Errno) {
	k := knobs()
	state.Lock()
	state.calls++
	calls := state.calls
	state.Unlock()
	if k.EINTREvery > 0 && calls%uint64(k.EINTREvery) == 0 {
		return -1, unix.EINTR
	}
	if al.Bitmapcount != AttrBitMapCount || al.Volattr != 0 || al.Forkattr != 0 ||
		al.Commonattr&(AttrCmnName|AttrCmnReturnedAttrs) != AttrCmnName|AttrCmnReturnedAttrs {
		return -1, unix.EINVAL
	}
	req := Req{Common: al.Commonattr, Dir: al.Dirattr, File: al.Fileattr, Options: uint32(options)}
	dir, errno := Fstatat(dirfd, nil, 0)
	if errno != 0 {
		return -1, errno
	}
	if dir.Mode&unix.S_IFMT != unix.S_IFDIR {
		return -1, unix.ENOTDIR
	}
	if al.Commonattr&^(AttrCmnName|AttrCmnReturnedAttrs|AttrCmnError) != 0 || al.Dirattr != 0 || al.Fileattr != 0 {
		// Attributes beyond the name need search permission on the
		// directory: without it the call fails (a lookup of "." needs
		// the same).
		var sx unix.Statx_t
		if err := unix.Statx(dirfd, ".", unix.AT_SYMLINK_NOFOLLOW, 0, &sx); err == unix.EACCES {
			return -1, unix.EACCES
		}
	}
	if len(k.ENOTSUP) > 0 || len(k.EINVAL) > 0 {
		nm := dirName(dirfd)
		if has(k.ENOTSUP, nm) {
			return -1, unix.ENOTSUP
		}
		if has(k.EINVAL, nm) {
			return -1, unix.EINVAL
		}
	}
	limit := len(buf)
	if k.BufSize > 0 && k.BufSize < limit {
		limit = k.BufSize
	}
	dp := scratch.Get().(*[]byte)
	defer scratch.Put(dp)
	dents := *dp
	count, used := 0, 0
	for {
		pos, err := unix.Seek(dirfd, 0, 1)
		if err != nil {
			return -1, err.(syscall.Errno)
		}
		n, err := unix.Getdents(dirfd, dents)
		if err != nil {
			if count > 0 {
				return count, 0
			}
			return -1, err.(syscall.Errno)
		}
		if n == 0 {
			return count, 0
		}
		for off := 0; off < n; {
			// struct linux_dirent64: u64 ino, s64 off, u16 reclen, u8 type, name.
			ino := binary.LittleEndian.Uint64(dents[off:])
			next := int64(binary.LittleEndian.Uint64(dents[off+8:]))
			reclen := int(binary.LittleEndian.Uint16(dents[off+16:]))
			name := dents[off+19 : off+reclen]
			name = name[:bytes.IndexByte(name, 0)]
			off += reclen
			if len(name) == 1 && name[0] == '.' || len(name) == 2 && name[0] == '.' && name[1] == '.' {
				pos = next
				continue
			}
			if has(k.Vanish, name) {
				unix.Unlinkat(dirfd, string(name), 0)
				unix.Unlinkat(dirfd, string(name), unix.AT_REMOVEDIR)
			}
			e := examine(dirfd, uint32(dir.Dev), name, ino, &k)
			if e.Errno != 0 && req.Common&AttrCmnError == 0 {
				// Without ERROR asked for, the entry's error is the call's.
				if count > 0 {
					unix.Seek(dirfd, pos, 0)
					return count, 0
				}
				unix.Seek(dirfd, next, 0)
				return -1, syscall.Errno(e.Errno)
			}
			rec := AppendRecord(buf[used:used], e, req, false)
			fits := used+len(rec) <= limit
			if !fits && k.Unpadded {
				rec = AppendRecord(buf[used:used], e, req, true)
				if used+len(rec) <= limit {
					// The last record of a full buffer, unpadded.
					unix.Seek(dirfd, next, 0)
					return count + 1, 0
				}
			}
			if !fits || used+len(rec) > len(buf) {
				// The buffer is full: the entry is the next call's.
				unix.Seek(dirfd, pos, 0)
				if count == 0 {
					return -1, unix.ERANGE
				}
				return count, 0
			}
			used += len(rec)
			count++
			pos = next
			if k.MaxRecords > 0 && count == k.MaxRecords {
				unix.Seek(dirfd, next, 0)
				return count, 0
			}
		}
	}
}

// ReadDirent is darwin's getdirentries64 on fd, from fd's offset (the
// darwin reader's readDirent): struct dirent records (u64 ino, u64
// seekoff, u16 reclen, u16 namlen, u8 type, the name and its NUL, padded
// to 8), "." and ".." included. As the kernel's, it reads the open
// directory itself: no search permission is needed.
func ReadDirent(fd int, buf []byte) (int, error) {
	dp := scratch.Get().(*[]byte)
	defer scratch.Put(dp)
	// A darwin record is at most 8 bytes longer than the Linux one, and
	// a Linux one is at least 24: half the buffer's worth always fits.
	dents := (*dp)[:min(len(*dp), len(buf)/2)]
	n, err := unix.Getdents(fd, dents)
	if err != nil || n == 0 {
		return 0, err
	}
	out := 0
	for off := 0; off < n; {
		ino := binary.LittleEndian.Uint64(dents[off:])
		next := binary.LittleEndian.Uint64(dents[off+8:])
		reclen := int(binary.LittleEndian.Uint16(dents[off+16:]))
		typ := dents[off+18]
		name := dents[off+19 : off+reclen]
		name = name[:bytes.IndexByte(name, 0)]
		off += reclen
		dl := (21 + len(name) + 1 + 7) &^ 7
		r := buf[out : out+dl]
		clear(r)
		binary.LittleEndian.PutUint64(r, ino)
		binary.LittleEndian.PutUint64(r[8:], next)
		binary.LittleEndian.PutUint16(r[16:], uint16(dl))
		binary.LittleEndian.PutUint16(r[18:], uint16(len(name)))
		r[20] = typ
		copy(r[21:], name)
		out += dl
	}
	return out, nil
}

// The layouts the C shim and x/sys share.
const (
	_ = uintptr(144 - unsafe.Sizeof(Stat{}))
	_ = uintptr(unsafe.Sizeof(Stat{}) - 144)
	_ = uintptr(24 - unsafe.Sizeof(Attrlist{}))
	_ = uintptr(unsafe.Sizeof(Attrlist{}) - 24)
)
