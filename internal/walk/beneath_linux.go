package walk

import "golang.org/x/sys/unix"

// openBeneath opens the directory at path, which names a directory below
// an operand, refusing any symlink on the way (openat2's
// RESOLVE_NO_SYMLINKS), unless the walk follows symlinks (-L). It fails
// where the kernel lacks openat2 and where the operand's own path holds a
// symlink: the caller then opens the directory below its parent's
// descriptor.
func openBeneath(path string, follow bool) (int, error) {
	how := unix.OpenHow{
		Flags: unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC | unix.O_NOCTTY | unix.O_NONBLOCK,
	}
	if !follow {
		how.Flags |= unix.O_NOFOLLOW
		how.Resolve = unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS
	}
	return unix.Openat2(unix.AT_FDCWD, path, &how)
}

// sameDir reports whether fd, a directory opened anew by a path, is the
// directory d was listed as (device and inode), as fts checks for du: a
// rename (of d, or of a directory above the operand) may have put another
// directory at that path since.
func sameDir(fd int, d *dir) bool {
	dev, ino, ok := dirID(fd)
	return ok && dev == d.dev && ino == d.ino
}

// dirID is the device and inode of the directory open as fd.
func dirID(fd int) (dev, ino uint64, ok bool) {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return 0, 0, false
	}
	return st.Dev, st.Ino, true
}
