//go:build godu_xnu && linux && cgo && !purego

package bulk

// The godu_xnu build on Linux: csrc/bulk_darwin.c, compiled against the
// shim in internal/xnu/include (see cgo_getattrlistbulk.go), calls these
// in place of libSystem's getattrlistbulk, fstatat and setiopolicy_np.

/*
#include <stddef.h>
#include <stdint.h>
#include <string.h>
*/
import "C"

import (
	"unsafe"

	"github.com/godu-sh/godu/internal/xnu"
)

//export goduXnuGetattrlistbulk
func goduXnuGetattrlistbulk(dirfd C.int, alist unsafe.Pointer, buf unsafe.Pointer, size C.size_t, options C.uint64_t) C.int {
	n, e := xnu.Getattrlistbulk(int(dirfd), (*xnu.Attrlist)(alist), unsafe.Slice((*byte)(buf), int(size)), uint64(options))
	if e != 0 {
		return -C.int(e)
	}
	return C.int(n)
}

//export goduXnuFstatat
func goduXnuFstatat(fd C.int, name *C.char, st unsafe.Pointer, flags C.int) C.int {
	var nm []byte
	if name != nil {
		nm = unsafe.Slice((*byte)(unsafe.Pointer(name)), C.strlen(name))
	}
	s, e := xnu.Fstatat(int(fd), nm, int(flags))
	if e != 0 {
		return C.int(e)
	}
	*(*xnu.Stat)(st) = s
	return 0
}

//export goduXnuSetiopolicy
func goduXnuSetiopolicy(iotype, scope, policy C.int) C.int {
	return C.int(xnu.Setiopolicy(int(iotype), int(scope), int(policy)))
}
