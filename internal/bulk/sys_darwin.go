//go:build !cgo || purego

package bulk

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The darwin reader's system interface: the kernel's. (The godu_xnu build
// on Linux has the same names over an emulation, in sys_xnu.go.)

type statT = unix.Stat_t

const (
	sysGetattrlistbulk = unix.SYS_GETATTRLISTBULK
	sysIopolicysys     = unix.SYS_IOPOLICYSYS
)

var (
	syscall6 = unix.Syscall6
	syscall3 = unix.Syscall
	fstatat  = unix.Fstatat
	fstat    = unix.Fstat
)

// readDirent lists fd's entries into buf as darwin's struct dirent (64-bit
// inodes) with getdirentries64, from fd's own offset, as the cgo core's
// readdir on a duplicate of fd does. x/sys's ReadDirent instead opens "."
// below fd, which takes search permission on the directory: the fallback
// for a directory that may be read but not searched (getattrlistbulk's
// EACCES) would then fail too, where du lists the entries and reports
// each; and it lists from the start again on every call (quadratic in a
// large directory on a volume without getattrlistbulk).
func readDirent(fd int, buf []byte) (int, error) {
	var pos int64
	for {
		n, _, e := unix.Syscall6(unix.SYS_GETDIRENTRIES64, uintptr(fd), uintptr(unsafe.Pointer(&buf[0])),
			uintptr(len(buf)), uintptr(unsafe.Pointer(&pos)), 0, 0)
		switch e {
		case 0:
			return int(n), nil
		case unix.EINTR:
			continue
		}
		return 0, syscall.Errno(e)
	}
}
