//go:build !linux

package walk

import "golang.org/x/sys/unix"

// openBeneath has no kernel to refuse symlinks on the way here: the caller
// opens the directory below its parent's descriptor.
func openBeneath(string, bool) (int, error) { return -1, unix.ENOSYS }
