//go:build unix && !solaris

package testtree

import "golang.org/x/sys/unix"

func linkat(olddirfd int, oldname string, newdirfd int, newname string) error {
	return unix.Linkat(olddirfd, oldname, newdirfd, newname, 0)
}

func symlinkat(target string, dirfd int, name string) error {
	return unix.Symlinkat(target, dirfd, name)
}
