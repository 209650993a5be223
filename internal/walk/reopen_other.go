//go:build !linux

package walk

import "github.com/godu-sh/godu/internal/sys"

// reopenBeneath: no openat2 here; the caller walks down from the nearest
// ancestor that holds a descriptor, one O_NOFOLLOW open a level.
func (sc *scan) reopenBeneath(wk *worker, d *dir, flags int) (int, bool, error) {
	return -1, false, nil
}

// openNear opens the directory at path relative to dirfd (reopenNear);
// the caller checks that it is the directory it means. (Never on
// Windows, where a walk keeps no cursors: nearWorks.)
func openNear(dirfd int, path string, flags int) (int, error) {
	return sys.Openat(dirfd, path, flags, 0)
}
