//go:build cgo && !purego && (linux || darwin)

package bulk

/*
#cgo CFLAGS: -O2 -Wall -Wextra
#include "../../csrc/bulk.h"
*/
import "C"

import (
	"syscall"
	"unsafe"
)

// Variant names the build: "cgo" or "purego".
const Variant = "cgo"

// The Go mirrors must match the C layouts exactly: these fail to compile
// (a negative constant converted to uintptr) if a size or offset differs.
const (
	_ = uintptr(unsafe.Sizeof(Record{}) - C.sizeof_godu_rec)
	_ = uintptr(C.sizeof_godu_rec - unsafe.Sizeof(Record{}))
	_ = uintptr(unsafe.Sizeof(ctl{}) - C.sizeof_godu_ctl)
	_ = uintptr(C.sizeof_godu_ctl - unsafe.Sizeof(ctl{}))
	_ = uintptr(unsafe.Offsetof(ctl{}.dcount) - unsafe.Offsetof(C.godu_ctl{}.dcount))
	_ = uintptr(unsafe.Offsetof(C.godu_ctl{}.dcount) - unsafe.Offsetof(ctl{}.dcount))
	_ = uintptr(unsafe.Offsetof(Record{}.Errno) - unsafe.Offsetof(C.godu_rec{}.err))
	_ = uintptr(unsafe.Offsetof(C.godu_rec{}.err) - unsafe.Offsetof(Record{}.Errno))
	_ = uintptr(unsafe.Offsetof(Record{}.Type) - unsafe.Offsetof(C.godu_rec{}._type))
	_ = uintptr(unsafe.Offsetof(C.godu_rec{}._type) - unsafe.Offsetof(Record{}.Type))
	_ = uintptr(unsafe.Offsetof(ctl{}.foldDev) - unsafe.Offsetof(C.godu_ctl{}.fold_dev))
	_ = uintptr(unsafe.Offsetof(C.godu_ctl{}.fold_dev) - unsafe.Offsetof(ctl{}.foldDev))
	_ = uintptr(unsafe.Offsetof(ctl{}.dirBlocks) - unsafe.Offsetof(C.godu_ctl{}.dir_blocks))
	_ = uintptr(unsafe.Offsetof(C.godu_ctl{}.dir_blocks) - unsafe.Offsetof(ctl{}.dirBlocks))
)

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

func coreStat(c *ctl, dirfd int, r *Reader) {
	C.godu_stat((*C.godu_ctl)(unsafe.Pointer(c)), C.int(dirfd),
		(*C.godu_rec)(unsafe.Pointer(&r.recs[0])),
		(*C.char)(unsafe.Pointer(&r.names[0])))
}

func coreStatOne(dirfd int, name *byte, mode Mode, rec *Record) syscall.Errno {
	return syscall.Errno(C.godu_stat_one(C.int(dirfd), (*C.char)(unsafe.Pointer(name)), C.uint32_t(mode),
		(*C.godu_rec)(unsafe.Pointer(rec))))
}
