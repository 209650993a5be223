//go:build !cgo

package main

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// defaultSignal gives sig the system's default action (rt_sigaction with
// SIG_DFL: a zeroed struct sigaction on every architecture).
func defaultSignal(sig syscall.Signal) {
	var act [4]uint64
	unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&act)), 0, 8, 0, 0)
}
