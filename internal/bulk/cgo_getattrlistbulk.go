//go:build (darwin || godu_xnu) && cgo && !purego

package bulk

// The darwin core is compiled here, inside the one preamble that calls it:
// its functions are static, so no C symbol of godu leaves this package.
// On Linux (the godu_xnu build) the macOS SDK's names it uses come from
// the shim in internal/xnu/include, over the emulation (xnu_cgo.go).

/*
#cgo CFLAGS: -O2 -Wall -Wextra
#cgo linux CFLAGS: -I${SRCDIR}/../xnu/include -include ${SRCDIR}/../xnu/include/xnu_shim.h
#include "../../csrc/bulk_darwin.c"
*/
import "C"

import (
	"syscall"
	"unsafe"
)

// tuneProcess turns off the download of dataless (cloud-evicted) files for
// the whole process, as macOS's du does.
func tuneProcess() { C.godu_no_materialize() }

// coreRead is the one cgo call per batch. Every pointer passed points to Go
// memory that holds no Go pointers, as cgo's rules require.
func coreRead(c *ctl, parent int, name *byte, r *Reader) {
	C.godu_read((*C.godu_ctl)(unsafe.Pointer(c)), C.int(parent),
		(*C.char)(unsafe.Pointer(name)),
		(*C.godu_rec)(unsafe.Pointer(&r.recs[0])),
		(*C.char)(unsafe.Pointer(&r.names[0])),
		(*C.char)(unsafe.Pointer(&r.dbuf[0])))
}

func coreClose(c *ctl) error {
	if C.godu_close((*C.godu_ctl)(unsafe.Pointer(c))) != 0 {
		return syscall.EIO
	}
	return nil
}

func coreStat(c *ctl, dirfd int, recs []Record, names []byte) {
	C.godu_stat((*C.godu_ctl)(unsafe.Pointer(c)), C.int(dirfd),
		(*C.godu_rec)(unsafe.Pointer(unsafe.SliceData(recs))),
		(*C.char)(unsafe.Pointer(unsafe.SliceData(names))))
}

func coreStatOne(dirfd int, name *byte, mode Mode, rec *Record) syscall.Errno {
	return syscall.Errno(C.godu_stat_one(C.int(dirfd), (*C.char)(unsafe.Pointer(name)), C.uint32_t(mode),
		(*C.godu_rec)(unsafe.Pointer(rec))))
}
