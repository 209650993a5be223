//go:build !linux

package walk

import "github.com/godu-sh/godu/internal/sys"

// openBeneath has no kernel to refuse symlinks on the way here: the caller
// opens the directory below its parent's descriptor.
func openBeneath(string, bool) (int, error) { return -1, sys.ENOSYS }

// sameDir reports whether fd, a directory opened anew by a path, is the
// directory d was listed as (device and inode), as fts checks for du: a
// rename (of d, or of a directory above the operand) may have put another
// directory at that path since.
func sameDir(fd int, d *dir) bool {
	dev, ino, ok := dirID(fd)
	return ok && dev == d.dev && ino == d.ino
}

// dirID is the device and inode of the directory open as fd, numbered as
// the readers number them.
func dirID(fd int) (dev, ino uint64, ok bool) { return sys.DirID(fd) }
