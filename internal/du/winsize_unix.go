//go:build unix

package du

import (
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

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

// foreground reports whether godu may draw on the terminal fd: it is in
// the terminal's foreground process group (a background job that drew
// would wipe the line being typed at the prompt), or fd is no terminal.
func foreground(fd int) bool {
	pg, err := terminalGroup(fd)
	return err != nil || pg == processGroup()
}

// progressSignals are the signals the progress line watches: a change of
// the window's size, and those that end godu by the runtime's handler
// (unless ignored at exec), after which the line is erased first.
func progressSignals() (resize os.Signal, ending []os.Signal) {
	for _, s := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		if !signal.Ignored(s) {
			ending = append(ending, s)
		}
	}
	return syscall.SIGWINCH, ending
}

// dieBy ends the process by sig, as the runtime's handler would have.
func dieBy(sig os.Signal) {
	signal.Reset(sig)
	syscall.Kill(os.Getpid(), sig.(syscall.Signal))
	time.Sleep(time.Second) // the signal's delivery
	os.Exit(128 + int(sig.(syscall.Signal)))
}
