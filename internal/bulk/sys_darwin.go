//go:build !cgo || purego

package bulk

import "golang.org/x/sys/unix"

// The darwin reader's system interface: the kernel's. (The godu_xnu build
// on Linux has the same names over an emulation, in sys_xnu.go.)

type statT = unix.Stat_t

const (
	sysGetattrlistbulk = unix.SYS_GETATTRLISTBULK
	sysIopolicysys     = unix.SYS_IOPOLICYSYS
)

var (
	syscall6   = unix.Syscall6
	syscall3   = unix.Syscall
	fstatat    = unix.Fstatat
	fstat      = unix.Fstat
	readDirent = unix.ReadDirent
)
