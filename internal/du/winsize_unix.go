//go:build unix

package du

import "golang.org/x/sys/unix"

// terminalWidth reports whether fd is a terminal, and its width.
func terminalWidth(fd int) (int, bool) {
	ws, err := unix.IoctlGetWinsize(fd, unix.TIOCGWINSZ)
	if err != nil {
		return 0, false
	}
	if ws.Col == 0 {
		return 80, true
	}
	return int(ws.Col), true
}
