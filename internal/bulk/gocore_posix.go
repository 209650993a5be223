//go:build unix

package bulk

import "golang.org/x/sys/unix"

// The Unix Go cores' shared pieces beside gocore_common.go.

func typeOfMode(mode uint32) Type {
	switch mode & unix.S_IFMT {
	case unix.S_IFREG:
		return Regular
	case unix.S_IFDIR:
		return Directory
	case unix.S_IFLNK:
		return Symlink
	case 0:
		return Unknown
	}
	return Other
}

// closeCtl closes the directory of c.
func closeCtl(c *ctl) error {
	err := unix.Close(int(c.fd))
	c.fd = -1
	return err
}
