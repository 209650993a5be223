package testtree

// illumos and Solaris have no linkat or symlinkat in x/sys/unix: the
// directory's path, from /proc/self/path, stands in for its descriptor.

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

func fdPath(fd int) (string, error) { return os.Readlink(fmt.Sprintf("/proc/self/path/%d", fd)) }

func linkat(olddirfd int, oldname string, newdirfd int, newname string) error {
	o, err := fdPath(olddirfd)
	if err != nil {
		return err
	}
	n, err := fdPath(newdirfd)
	if err != nil {
		return err
	}
	return unix.Link(filepath.Join(o, oldname), filepath.Join(n, newname))
}

func symlinkat(target string, dirfd int, name string) error {
	d, err := fdPath(dirfd)
	if err != nil {
		return err
	}
	return unix.Symlink(target, filepath.Join(d, name))
}
