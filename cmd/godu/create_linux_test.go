package main

import "golang.org/x/sys/unix"

// createEmpty creates an empty file name in directory fd in one call.
func createEmpty(fd int, name string) error {
	return unix.Mknodat(fd, name, unix.S_IFREG|0o644, 0)
}
