package sys

import (
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Flags of Open and Openat. Only O_DIRECTORY and O_NOFOLLOW mean anything
// here: a directory is opened to list it and read attributes, never data.
const (
	O_RDONLY    = 0x0
	O_DIRECTORY = 0x1
	O_CLOEXEC   = 0x0 // handles are not inherited
	O_NOCTTY    = 0x0
	O_NONBLOCK  = 0x0
	O_NOFOLLOW  = 0x2
)

// AT_FDCWD names the working directory as a directory descriptor; no
// handle has this value.
const AT_FDCWD = -100

// PathMax is the longest path the system resolves (\\?\ paths).
const PathMax = 32767

// Errors the walk tells apart, as Windows reports them.
const (
	ENOENT = windows.ERROR_FILE_NOT_FOUND
	ENOSYS = windows.ERROR_NOT_SUPPORTED
	EMFILE = windows.ERROR_TOO_MANY_OPEN_FILES
	ENFILE = windows.ERROR_NO_SYSTEM_RESOURCES
	// EACCES: permission denied.
	EACCES = windows.ERROR_ACCESS_DENIED
	// ENAMETOOLONG: a path of PathMax bytes or more.
	ENAMETOOLONG = windows.ERROR_FILENAME_EXCED_RANGE
)

// ELOOP is what opening a reparse point with O_NOFOLLOW|O_DIRECTORY
// returns: the name is a link, not a directory.
const ELOOP = windows.ERROR_CANT_RESOLVE_FILENAME

// Open opens path.
func Open(path string, flags int, perm uint32) (int, error) {
	h, err := OpenHandle(AT_FDCWD, path, flags, windows.FILE_LIST_DIRECTORY|windows.FILE_READ_ATTRIBUTES)
	return int(h), err
}

// Openat opens name relative to the directory open as dirfd.
func Openat(dirfd int, name string, flags int, perm uint32) (int, error) {
	h, err := OpenHandle(dirfd, name, flags, windows.FILE_LIST_DIRECTORY|windows.FILE_READ_ATTRIBUTES)
	return int(h), err
}

// Close closes fd.
func Close(fd int) error { return windows.CloseHandle(windows.Handle(fd)) }

// Pause waits a millisecond (timers need no descriptor here).
func Pause() { time.Sleep(time.Millisecond) }

// OpenHandle opens name relative to the directory handle dirfd (or the
// working directory, AT_FDCWD) with access, for attributes or listing,
// never data. With O_NOFOLLOW a reparse point is opened itself, and with
// O_DIRECTORY as well refused (ELOOP); with O_DIRECTORY a file is refused.
func OpenHandle(dirfd int, name string, flags int, access uint32) (windows.Handle, error) {
	var h windows.Handle
	if dirfd == AT_FDCWD {
		p, err := windows.UTF16PtrFromString(name)
		if err != nil {
			return windows.InvalidHandle, err
		}
		attrs := uint32(windows.FILE_FLAG_BACKUP_SEMANTICS)
		if flags&O_NOFOLLOW != 0 {
			attrs |= windows.FILE_FLAG_OPEN_REPARSE_POINT
		}
		h, err = windows.CreateFile(p, access|windows.SYNCHRONIZE,
			windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE,
			nil, windows.OPEN_EXISTING, attrs, 0)
		if err != nil {
			return windows.InvalidHandle, err
		}
	} else {
		u, err := windows.NewNTUnicodeString(name)
		if err != nil {
			return windows.InvalidHandle, err
		}
		oa := windows.OBJECT_ATTRIBUTES{RootDirectory: windows.Handle(dirfd), ObjectName: u}
		oa.Length = uint32(unsafe.Sizeof(oa))
		opts := uint32(windows.FILE_SYNCHRONOUS_IO_NONALERT | windows.FILE_OPEN_FOR_BACKUP_INTENT)
		if flags&O_NOFOLLOW != 0 {
			opts |= windows.FILE_OPEN_REPARSE_POINT
		}
		var iosb windows.IO_STATUS_BLOCK
		if st := windows.NtCreateFile(&h, access|windows.SYNCHRONIZE, &oa, &iosb, nil, 0,
			windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE,
			windows.FILE_OPEN, opts, 0, 0); st != nil {
			if s, ok := st.(windows.NTStatus); ok {
				return windows.InvalidHandle, s.Errno()
			}
			return windows.InvalidHandle, st
		}
	}
	if flags&O_DIRECTORY != 0 {
		var ti fileAttributeTagInfo
		if err := windows.GetFileInformationByHandleEx(h, windows.FileAttributeTagInfo,
			(*byte)(unsafe.Pointer(&ti)), uint32(unsafe.Sizeof(ti))); err != nil {
			windows.CloseHandle(h)
			return windows.InvalidHandle, err
		}
		var err error
		switch {
		case flags&O_NOFOLLOW != 0 && ti.Attributes&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0:
			err = ELOOP
		case ti.Attributes&windows.FILE_ATTRIBUTE_DIRECTORY == 0:
			err = windows.ERROR_DIRECTORY
		}
		if err != nil {
			windows.CloseHandle(h)
			return windows.InvalidHandle, err
		}
	}
	return h, nil
}

// fileAttributeTagInfo is FILE_ATTRIBUTE_TAG_INFO.
type fileAttributeTagInfo struct {
	Attributes uint32
	ReparseTag uint32
}

// DirID is the volume serial number and file index of the directory open
// as fd, as the Windows reader numbers devices and inodes.
func DirID(fd int) (dev, ino uint64, ok bool) {
	var info windows.ByHandleFileInformation
	if windows.GetFileInformationByHandle(windows.Handle(fd), &info) != nil {
		return 0, 0, false
	}
	return uint64(info.VolumeSerialNumber), uint64(info.FileIndexHigh)<<32 | uint64(info.FileIndexLow), true
}
