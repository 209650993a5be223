//go:build cgo && unix

package main

// What the process was given at exec, seen before the Go runtime starts:
// the runtime opens /dev/null on a closed standard descriptor and installs
// its own SIGPIPE handler, after which neither can be told any more. A C
// constructor runs before both.

/*
#include <fcntl.h>
#include <signal.h>

static int godu_closed_at_exec;
static int godu_sigpipe_ignored_at_exec;

__attribute__((constructor)) static void godu_note_exec_state(void) {
	for (int fd = 0; fd < 3; fd++)
		if (fcntl(fd, F_GETFD) < 0)
			godu_closed_at_exec |= 1 << fd;
	struct sigaction sa;
	if (sigaction(SIGPIPE, 0, &sa) == 0 && sa.sa_handler == SIG_IGN)
		godu_sigpipe_ignored_at_exec = 1;
}

static int godu_closed(void) { return godu_closed_at_exec; }
static int godu_sigpipe_ignored(void) { return godu_sigpipe_ignored_at_exec; }
*/
import "C"

// execState reports which of descriptors 0, 1 and 2 were closed at exec
// (bit i for descriptor i), and whether SIGPIPE was ignored.
func execState() (closed int, sigpipeIgnored bool) {
	return int(C.godu_closed()), C.godu_sigpipe_ignored() != 0
}
