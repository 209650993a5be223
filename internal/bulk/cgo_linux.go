//go:build cgo && !purego && !godu_xnu && !godu_portable

package bulk

// The Linux core is compiled here, inside the one preamble that calls it:
// its functions are static, so no C symbol of godu leaves this package.

/*
#cgo CFLAGS: -O2 -Wall -Wextra
#include "../../csrc/bulk_linux.c"
*/
import "C"

import (
	"syscall"
	"time"
	"unsafe"
)

// tuneProcess makes glibc keep one malloc arena (see csrc/bulk_linux.c).
func tuneProcess() { C.godu_one_arena() }

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

// coreTree is the one cgo call of a subtree walk.
func coreTree(t *treeCtl, rootfd int, anc []uint64, r *Reader) {
	var a *C.uint64_t
	if len(anc) > 0 {
		a = (*C.uint64_t)(unsafe.Pointer(&anc[0]))
	}
	C.godu_tree_walk((*C.godu_tree)(unsafe.Pointer(t)), C.int(rootfd), a,
		(*C.godu_tnode)(unsafe.Pointer(&r.nodes[0])),
		(*C.char)(unsafe.Pointer(&r.tnames[0])),
		(*C.godu_rec)(unsafe.Pointer(&r.trecs[0])),
		(*C.int32_t)(unsafe.Pointer(&r.lnode[0])),
		(*C.char)(unsafe.Pointer(&r.tlnames[0])),
		(*C.char)(unsafe.Pointer(&r.dbuf[0])),
		(*C.godu_rec)(unsafe.Pointer(&r.tscr[0])), C.uint32_t(len(r.tscr)),
		(*C.char)(unsafe.Pointer(&r.tscrNames[0])),
		(*C.godu_live)(unsafe.Pointer(r.tlive)))
}

// coreHelp is the cgo call of a helper (Reader.Help).
func coreHelp(live *Live, r *Reader) int {
	return int(C.godu_tree_help((*C.godu_live)(unsafe.Pointer(live)),
		(*C.char)(unsafe.Pointer(&r.dbuf[0])), C.uint32_t(len(r.dbuf)),
		(*C.godu_rec)(unsafe.Pointer(&r.tscr[0])), C.uint32_t(len(r.tscr)),
		(*C.char)(unsafe.Pointer(&r.tscrNames[0]))))
}

// setHelpTest makes each helper take d more over each directory and,
// with join, each walk wait for a helper to join it (tests).
func setHelpTest(d time.Duration, join bool) {
	j := 0
	if join {
		j = 1
	}
	C.godu_set_help_test(C.uint32_t(d), C.uint32_t(j))
}
