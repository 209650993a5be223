//go:build godu_xnu && linux && (!cgo || purego)

package bulk

import (
	"syscall"
	"unsafe"

	"github.com/godu-sh/godu/internal/xnu"
	"golang.org/x/sys/unix"
)

// The darwin reader's system interface in the godu_xnu build on Linux:
// darwin's system calls, answered by the emulation in internal/xnu. Only
// the reader's system calls are replaced: its loop is darwin's.

type statT = xnu.Stat

// darwin's system call numbers.
const (
	sysGetattrlistbulk = 461
	sysIopolicysys     = 322
)

var (
	syscall6   = xnuSyscall6
	syscall3   = xnuSyscall
	readDirent = xnu.ReadDirent
)

// ptr is the address a system call argument holds.
func ptr(a uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&a)) }

func xnuSyscall6(trap, a1, a2, a3, a4, a5, a6 uintptr) (uintptr, uintptr, syscall.Errno) {
	if trap != sysGetattrlistbulk {
		return 0, 0, unix.ENOSYS
	}
	n, e := xnu.Getattrlistbulk(int(a1), (*xnu.Attrlist)(ptr(a2)), unsafe.Slice((*byte)(ptr(a3)), a4), uint64(a5))
	if e != 0 {
		return ^uintptr(0), 0, e
	}
	return uintptr(n), 0, 0
}

func xnuSyscall(trap, a1, a2, a3 uintptr) (uintptr, uintptr, syscall.Errno) {
	if trap != sysIopolicysys || a1 != 1 {
		return 0, 0, unix.ENOSYS
	}
	p := (*[3]int32)(ptr(a2))
	xnu.Setiopolicy(int(p[1]), int(p[0]), int(p[2]))
	return 0, 0, 0
}

func fstatat(fd int, path string, st *statT, flags int) error {
	s, e := xnu.Fstatat(fd, []byte(path), flags)
	if e != 0 {
		return e
	}
	*st = s
	return nil
}

func fstat(fd int, st *statT) error { return fstatat(fd, "", st, 0) }
