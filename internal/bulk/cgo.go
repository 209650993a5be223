//go:build cgo && !purego && !godu_portable && (linux || darwin)

package bulk

/*
#cgo CFLAGS: -O2 -Wall -Wextra
#include "../../csrc/bulk.h"
*/
import "C"

import "unsafe"

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
	_ = uintptr(unsafe.Offsetof(ctl{}.tmaxSec) - unsafe.Offsetof(C.godu_ctl{}.tmax_sec))
	_ = uintptr(unsafe.Offsetof(C.godu_ctl{}.tmax_sec) - unsafe.Offsetof(ctl{}.tmaxSec))
)
