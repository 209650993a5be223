//go:build !linux

package walk

import (
	"runtime"

	"github.com/godu-sh/godu/internal/sys"
)

// reopenBeneath: no openat2 here; the caller walks down from the nearest
// ancestor that holds a descriptor, one O_NOFOLLOW open a level.
func (sc *scan) reopenBeneath(wk *worker, d *dir, flags int) (int, bool, error) {
	return -1, false, nil
}

// openNear opens the directory at path relative to dirfd (reopenNear);
// the caller checks that it is the directory it means.
func openNear(dirfd int, path string, flags int) (int, error) {
	if runtime.GOOS == "windows" {
		return -1, sys.ENOENT // (reopened as before)
	}
	return sys.Openat(dirfd, path, flags, 0)
}
