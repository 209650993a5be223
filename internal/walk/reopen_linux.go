package walk

import (
	"sync/atomic"

	"strings"

	"golang.org/x/sys/unix"

	"github.com/godu-sh/godu/internal/bulk"
)

// reopenBeneath opens d with one openat2 from its nearest ancestor that
// holds a descriptor (or the operand, opened anew), by the path between them resolved beneath that
// ancestor and through no symlink, so that reopening a directory whose
// ancestors were shed costs one open (one per PATH_MAX of depth) instead
// of one per level. It reports
// false when that cannot be done (-L, a
// path past PATH_MAX, a kernel without openat2): the caller walks down.
// The caller holds d's descriptor's lock; ancestors' locks are taken one at a time.
// Out of descriptors it reports done with the error: walking down would
// need two at a time.
func (sc *scan) reopenBeneath(wk *worker, d *dir, flags int) (fd int, done bool, err error) {
	if sc.mode&bulk.Follow != 0 || noOpenat2.Load() {
		return -1, false, nil
	}
	names := []string{d.name}
	size := len(d.name)
	for a := d.parent; a != nil; a = a.parent {
		a.fd.lock()
		afd, own := a.fd.Fd(), false
		// The operand, opened as du opens it, or an ancestor a path's
		// length above: reopened likewise, a path at a time.
		if afd < 0 && (a.parent == nil || size+1+len(a.name) >= unix.PathMax) {
			var err error
			if afd, _, err = sc.reopen(wk, a); err != nil {
				a.fd.unlock()
				return -1, tooManyFiles(err), err
			}
			own = true
		}
		if afd >= 0 {
			for i, j := 0, len(names)-1; i < j; i, j = i+1, j-1 {
				names[i], names[j] = names[j], names[i]
			}
			how := unix.OpenHow{Flags: uint64(flags), Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS}
			scarcity.beneath.Add(1)
			scarcity.steps.Add(int64(len(names)))
			fd, err := unix.Openat2(afd, strings.Join(names, "/"), &how)
			if own {
				unix.Close(afd)
			}
			a.fd.unlock()
			if err == unix.ENOSYS || err == unix.EPERM {
				noOpenat2.Store(true) // seccomp filters may answer EPERM
				return -1, false, nil
			}
			return fd, err == nil || tooManyFiles(err), err
		}
		a.fd.unlock()
		names = append(names, a.name)
		size += len(a.name) + 1
	}
	return -1, false, nil
}

// noOpenat2 is set once the kernel refused openat2.
var noOpenat2 atomic.Bool

// openNear opens the directory at path relative to dirfd (reopenNear),
// through no symlink where the walk follows none: openat2's
// RESOLVE_NO_SYMLINKS, or openat where the kernel lacks it.
func openNear(dirfd int, path string, flags int) (int, error) {
	if flags&unix.O_NOFOLLOW != 0 && !noOpenat2.Load() {
		how := unix.OpenHow{Flags: uint64(flags), Resolve: unix.RESOLVE_NO_SYMLINKS}
		fd, err := unix.Openat2(dirfd, path, &how)
		if err != unix.ENOSYS && err != unix.EPERM {
			return fd, err
		}
		noOpenat2.Store(true)
	}
	return unix.Openat(dirfd, path, flags, 0)
}
