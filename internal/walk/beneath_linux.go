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
