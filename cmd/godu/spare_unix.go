//go:build unix

package main

import "syscall"

// spareDescriptors reports whether n more descriptors can be opened.
func spareDescriptors(n int) bool {
	var fds []int
	defer func() {
		for _, fd := range fds {
			syscall.Close(fd)
		}
	}()
	for range n {
		fd, err := syscall.Dup(2)
		if err != nil {
			return false
		}
		fds = append(fds, fd)
	}
	return true
}
