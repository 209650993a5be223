//go:build !linux

package walk

import "golang.org/x/sys/unix"

// openBeneath has no kernel to refuse symlinks on the way here: the caller
// opens the directory below its parent's descriptor.
func openBeneath(string, bool) (int, error) { return -1, unix.ENOSYS }

// sameDir reports whether fd, a directory opened anew by a path, is the
// directory d was listed as (device and inode), as fts checks for du.
func sameDir(fd int, d *dir) bool {
	var st unix.Stat_t
	return unix.Fstat(fd, &st) == nil && uint64(uint32(st.Dev)) == d.dev && uint64(st.Ino) == d.ino
}
