//go:build unix && !linux

package main

import "golang.org/x/sys/unix"

// createEmpty creates an empty file name in directory fd.
func createEmpty(fd int, name string) error {
	f, err := unix.Openat(fd, name, unix.O_CREAT|unix.O_WRONLY|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return err
	}
	return unix.Close(f)
}
