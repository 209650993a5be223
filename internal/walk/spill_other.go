//go:build !linux && !windows

package walk

import "os"

// openPrivateTemp makes a nameless temporary file in dir (createUnlinked:
// the system has no O_TMPFILE).
func openPrivateTemp(dir string) (*os.File, error) {
	return createUnlinked(dir)
}
