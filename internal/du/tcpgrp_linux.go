package du

import "golang.org/x/sys/unix"

// terminalGroup is the foreground process group of the terminal fd (a
// pid_t, 32 bits: read into an int, it would be shifted on a big-endian
// machine).
func terminalGroup(fd int) (int, error) {
	pg, err := unix.IoctlGetUint32(fd, unix.TIOCGPGRP)
	return int(int32(pg)), err
}

func processGroup() int { return unix.Getpgrp() }
