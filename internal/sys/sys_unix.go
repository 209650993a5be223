//go:build unix

package sys

import (
	"golang.org/x/sys/unix"
)

// Flags of Open and Openat.
const (
	O_RDONLY    = unix.O_RDONLY
	O_DIRECTORY = unix.O_DIRECTORY
	O_CLOEXEC   = unix.O_CLOEXEC
	O_NOCTTY    = unix.O_NOCTTY
	O_NONBLOCK  = unix.O_NONBLOCK
	O_NOFOLLOW  = unix.O_NOFOLLOW
)

// AT_FDCWD names the working directory as a directory descriptor.
const AT_FDCWD = unix.AT_FDCWD

// PathMax is the longest path the system resolves in one call.
const PathMax = unix.PathMax

// Errors the walk tells apart.
const (
	ENOENT = unix.ENOENT
	ENOSYS = unix.ENOSYS
	EMFILE = unix.EMFILE
	ENFILE = unix.ENFILE
	// EACCES: permission denied.
	EACCES = unix.EACCES
	// ENAMETOOLONG: a path of PathMax bytes or more.
	ENAMETOOLONG = unix.ENAMETOOLONG
)

// Open opens path.
func Open(path string, flags int, perm uint32) (int, error) { return unix.Open(path, flags, perm) }

// Openat opens name relative to the directory open as dirfd.
func Openat(dirfd int, name string, flags int, perm uint32) (int, error) {
	return unix.Openat(dirfd, name, flags, perm)
}

// Close closes fd.
func Close(fd int) error { return unix.Close(fd) }

// Pause waits a millisecond. Not time.Sleep: the runtime's first timer
// needs a descriptor of its own (epoll, kqueue), and when Pause is called
// there may be none to be had.
func Pause() {
	tv := unix.Timeval{Usec: 1000}
	unix.Select(0, nil, nil, nil, &tv)
}

// DirID is the device and inode of the directory open as fd, numbered as
// the readers number them (devNumber).
func DirID(fd int) (dev, ino uint64, ok bool) {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return 0, 0, false
	}
	return devNumber(st.Dev), uint64(st.Ino), true
}
