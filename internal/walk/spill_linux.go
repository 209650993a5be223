package walk

import (
	"os"

	"golang.org/x/sys/unix"
)

// openPrivateTemp makes a nameless temporary file in dir: O_TMPFILE, or
// where the file system lacks it, createUnlinked.
func openPrivateTemp(dir string) (*os.File, error) {
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return createUnlinked(dir)
	}
	return os.NewFile(uintptr(fd), dir+"/(spill)"), nil
}
