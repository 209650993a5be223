package bulk

// The Windows reader, through golang.org/x/sys/windows: a directory is
// listed by GetFileInformationByHandleEx(FileIdBothDirectoryInfo), whose
// records carry each entry's allocation size, size, file ID, attributes
// and times, so a directory costs one call per buffer of entries. The
// device is the directory's volume serial number. A regular file's link
// count is not in the listing: it is asked of the file (FileStandardInfo)
// so that hard links are counted once. Reparse points that name another
// file are symlinks and are not followed (unless Follow). Descriptors are
// handles; subdirectories are opened relative to their parent's handle.
// The record mapping is winrec.go, tested on every system.

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/godu-sh/godu/internal/sys"
)

// Variant names the build.
const Variant = "windows"

// kernelBufSize is the listing buffer: 64 KiB, some 500 records.
const kernelBufSize = 64 << 10

// CanSplit reports whether a directory's names can be listed first and
// examined later by several Readers at once (Reader.Stat). A listing
// already holds the entries' attributes.
const CanSplit = false

// MountPointsShowCovered reports whether a mount point's directory record
// describes the covered directory rather than the mounted volume's root.
// Mount points are reparse points here, never entered.
const MountPointsShowCovered = false

// fileStandardInfo is FILE_STANDARD_INFO.
type fileStandardInfo struct {
	AllocationSize int64
	EndOfFile      int64
	NumberOfLinks  uint32
	DeletePending  byte
	Directory      byte
	_              [2]byte
}

// fileBasicInfo is FILE_BASIC_INFO.
type fileBasicInfo struct {
	CreationTime, LastAccessTime, LastWriteTime, ChangeTime int64
	FileAttributes                                          uint32
	_                                                       uint32
}

// fileAttributeTagInfo is FILE_ATTRIBUTE_TAG_INFO.
type fileAttributeTagInfo struct {
	Attributes uint32
	ReparseTag uint32
}

func infoEx(h windows.Handle, class uint32, p unsafe.Pointer, size uintptr) error {
	return windows.GetFileInformationByHandleEx(h, class, (*byte)(p), uint32(size))
}

func filetime(ft windows.Filetime) int64 { return int64(ft.HighDateTime)<<32 | int64(ft.LowDateTime) }

// statHandle describes the file open as h, as fstat would.
func statHandle(h windows.Handle, flags uint32, r *Record) error {
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &info); err != nil {
		return err
	}
	var std fileStandardInfo
	if err := infoEx(h, windows.FileStandardInfo, unsafe.Pointer(&std), unsafe.Sizeof(std)); err != nil {
		return err
	}
	var tag fileAttributeTagInfo
	if info.FileAttributes&winAttrReparsePoint != 0 {
		infoEx(h, windows.FileAttributeTagInfo, unsafe.Pointer(&tag), unsafe.Sizeof(tag))
	}
	e := winDirEntry{
		atime:  filetime(info.LastAccessTime),
		mtime:  filetime(info.LastWriteTime),
		ctime:  filetime(info.LastWriteTime),
		size:   int64(info.FileSizeHigh)<<32 | int64(info.FileSizeLow),
		alloc:  std.AllocationSize,
		attrs:  info.FileAttributes,
		tag:    tag.ReparseTag,
		fileID: uint64(info.FileIndexHigh)<<32 | uint64(info.FileIndexLow),
	}
	if flags&uint32(CTime) != 0 {
		var basic fileBasicInfo
		if infoEx(h, windows.FileBasicInfo, unsafe.Pointer(&basic), unsafe.Sizeof(basic)) == nil {
			e.ctime = basic.ChangeTime
		}
	}
	winRecord(&e, uint64(info.VolumeSerialNumber), flags, r)
	r.Nlink = info.NumberOfLinks
	return nil
}

// statAt describes name relative to the directory handle dirfd.
func statAt(dirfd int, name string, flags uint32, r *Record) syscall.Errno {
	fl := sys.O_NOFOLLOW
	if flags&uint32(Follow) != 0 {
		fl = 0
	}
	h, err := sys.OpenHandle(dirfd, name, fl, windows.FILE_READ_ATTRIBUTES)
	if err != nil {
		return errnoOf(err)
	}
	defer windows.CloseHandle(h)
	if err := statHandle(h, flags, r); err != nil {
		return errnoOf(err)
	}
	return 0
}

// winLinks sets a listed regular file's link count, asked of the file; a
// file that cannot be opened keeps the one link of its listing.
func winLinks(dirfd int, name string, r *Record) {
	h, err := sys.OpenHandle(dirfd, name, sys.O_NOFOLLOW, windows.FILE_READ_ATTRIBUTES)
	if err != nil {
		return
	}
	var std fileStandardInfo
	if infoEx(h, windows.FileStandardInfo, unsafe.Pointer(&std), unsafe.Sizeof(std)) == nil && std.NumberOfLinks > 0 {
		r.Nlink = std.NumberOfLinks
	}
	windows.CloseHandle(h)
}

func coreClose(c *ctl) error { return closeCtl(c) }

// closeCtl closes the directory of c.
func closeCtl(c *ctl) error {
	err := windows.CloseHandle(windows.Handle(c.fd))
	c.fd = -1
	return err
}

func coreStatOne(dirfd int, name *byte, mode Mode, rec *Record) syscall.Errno {
	return statAt(dirfd, windows.BytePtrToString(name), uint32(mode), rec)
}

func coreStat(c *ctl, dirfd int, recs []Record, names []byte) {
	statBatch(c, recs, names, func(name *byte, rec *Record) {
		if e := statAt(dirfd, unsafe.String(name, rec.NameLen), c.flags, rec); e != 0 {
			*rec = Record{Type: rec.Type, Errno: int32(e), NameOff: rec.NameOff, NameLen: rec.NameLen}
		}
	})
}

func coreRead(c *ctl, parent int, name *byte, r *Reader) {
	reset(c)
	if c.fd < 0 {
		fl := sys.O_DIRECTORY
		if c.flags&uint32(Follow) == 0 {
			fl |= sys.O_NOFOLLOW
		}
		h, err := sys.OpenHandle(parent, windows.BytePtrToString(name), fl,
			windows.FILE_LIST_DIRECTORY|windows.FILE_READ_ATTRIBUTES)
		if err != nil {
			c.err = int32(errnoOf(err))
			return
		}
		// Handles are 32-bit values on 64-bit Windows as well.
		c.fd = int32(h)
		c.dpos, c.dlen, c.eof = 0, 0, 0
	}
	h := windows.Handle(c.fd)
	if c.dirDev == 0 { // the entries' device: the directory's volume, opened here or by the caller
		var info windows.ByHandleFileInformation
		if windows.GetFileInformationByHandle(h, &info) == nil {
			c.dirDev = uint64(info.VolumeSerialNumber)
		}
	}
	buf := r.dbuf[:c.dbufCap]
	seen := uint32(0)
	for {
		if c.dpos >= c.dlen {
			if c.eof != 0 {
				return
			}
			err := windows.GetFileInformationByHandleEx(h, windows.FileIdBothDirectoryInfo, &buf[0], uint32(len(buf)))
			if err == windows.ERROR_NO_MORE_FILES {
				c.eof = 1
				return
			}
			if err != nil {
				c.err, c.eof = int32(errnoOf(err)), 1
				return
			}
			c.dpos, c.dlen = 0, uint32(len(buf))
		}
		e, ok := parseWinDirEntry(buf[c.dpos:c.dlen])
		if !ok {
			c.err, c.eof = int32(windows.ERROR_INVALID_DATA), 1
			return
		}
		next := c.dlen
		if e.next != 0 {
			next = c.dpos + e.next
		}
		nm := appendWTF8(r.names[c.namesLen:c.namesLen], e.name)
		n := uint32(len(nm))
		if isDot(nm) {
			c.dpos = next
			continue
		}
		if seen == c.recCap || c.nrecs == c.recCap || c.namesLen+n+1 > c.namesCap {
			c.more = 1 // at most recCap entries a call, folded or not
			return
		}
		seen++
		rec := &r.recs[c.nrecs]
		winRecord(&e, c.dirDev, c.flags, rec)
		if c.flags&uint32(NamesOnly) == 0 {
			switch {
			case rec.Type == Symlink && c.flags&uint32(Follow) != 0:
				if e := statAt(int(c.fd), string(nm), c.flags, rec); e != 0 {
					*rec = Record{Type: Symlink, Errno: int32(e)}
				}
			case rec.Type == Regular:
				winLinks(int(c.fd), string(nm), rec)
			}
			if fold(c, rec) {
				c.dpos = next
				continue
			}
		}
		r.names[c.namesLen+n] = 0
		rec.NameOff, rec.NameLen = c.namesLen, n
		c.namesLen += n + 1
		c.nrecs++
		c.dpos = next
	}
}
