//go:build !linux

package walk

import "github.com/godu-sh/godu/internal/sys"

// openBeneath has no kernel to refuse symlinks on the way here: the caller
// opens the directory below its parent's descriptor.
func openBeneath(string, bool) (int, error) { return -1, sys.ENOSYS }
