package du

import (
	"os"

	"golang.org/x/sys/windows"
)

// terminalWidth reports whether standard descriptor fd is a console, and
// its width.
func terminalWidth(fd int) (int, bool) {
	var std uint32
	switch fd {
	case 0:
		std = windows.STD_INPUT_HANDLE
	case 1:
		std = windows.STD_OUTPUT_HANDLE
	case 2:
		std = windows.STD_ERROR_HANDLE
	default:
		return 0, false
	}
	h, err := windows.GetStdHandle(std)
	if err != nil {
		return 0, false
	}
	var info windows.ConsoleScreenBufferInfo
	if windows.GetConsoleScreenBufferInfo(h, &info) != nil {
		return 0, false
	}
	if w := int(info.Window.Right-info.Window.Left) + 1; w > 0 {
		return w, true
	}
	return 80, true
}

// foreground: a console has no background jobs.
func foreground(int) bool { return true }

// progressSignals: none watched on Windows.
func progressSignals() (os.Signal, []os.Signal) { return nil, nil }

func dieBy(os.Signal) {}
