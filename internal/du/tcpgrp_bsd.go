//go:build unix && !linux && !solaris && !illumos

package du

import "golang.org/x/sys/unix"

// terminalGroup is the foreground process group of the terminal fd.
func terminalGroup(fd int) (int, error) {
	return unix.IoctlGetInt(fd, unix.TIOCGPGRP)
}

func processGroup() int { return unix.Getpgrp() }
