//go:build (!cgo || purego) && !godu_xnu && !godu_portable

package bulk

import "syscall"

// Variant names the build: "cgo" or "purego".
const Variant = "purego"

func coreRead(c *ctl, parent int, name *byte, r *Reader)      { goRead(c, parent, name, r) }
func coreStat(c *ctl, dirfd int, recs []Record, names []byte) { goStat(c, dirfd, recs, names) }
func coreClose(c *ctl) error                                  { return closeCtl(c) }
func coreStatOne(dirfd int, name *byte, mode Mode, rec *Record) syscall.Errno {
	return goStatOne(dirfd, name, mode, rec)
}
