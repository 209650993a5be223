package walk

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"
)

// openPrivateTemp makes a temporary file in dir that no other handle may
// open and that Windows deletes when it is closed (an open file cannot be
// unlinked here).
func openPrivateTemp(dir string) (*os.File, error) {
	name := filepath.Join(dir, fmt.Sprintf(".godu-spill-%d-%x", os.Getpid(), rand.Uint64()))
	p, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return nil, err
	}
	h, err := windows.CreateFile(p, windows.GENERIC_READ|windows.GENERIC_WRITE, 0, nil, windows.CREATE_NEW,
		windows.FILE_ATTRIBUTE_TEMPORARY|windows.FILE_FLAG_DELETE_ON_CLOSE, 0)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(h), name), nil
}
