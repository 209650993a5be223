//go:build unix && !linux && !darwin

package du

import "golang.org/x/sys/unix"

const winsizeReq = unix.TIOCGWINSZ
