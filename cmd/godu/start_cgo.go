//go:build cgo && unix

package main

// What the process was given at exec, seen before the Go runtime starts:
// the runtime opens /dev/null on a closed standard descriptor and installs
// its own handlers for most signals, after which neither can be told any
// more. A C constructor runs before both.

/*
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>

static int godu_closed_at_exec;
static uint64_t godu_ignored_at_exec;

__attribute__((constructor)) static void godu_note_exec_state(void) {
	for (int fd = 0; fd < 3; fd++)
		if (fcntl(fd, F_GETFD) < 0)
			godu_closed_at_exec |= 1 << fd;
	for (int sig = 1; sig < 64; sig++) {
		struct sigaction sa;
		if (sigaction(sig, 0, &sa) == 0 && sa.sa_handler == SIG_IGN)
			godu_ignored_at_exec |= (uint64_t)1 << sig;
	}
}

static int godu_closed(void) { return godu_closed_at_exec; }
static uint64_t godu_ignored(void) { return godu_ignored_at_exec; }

static void godu_default_signal(int sig) {
	struct sigaction sa = {0};
	sa.sa_handler = SIG_DFL;
	sigaction(sig, &sa, 0);
}
*/
import "C"

import "syscall"

// execState reports which of descriptors 0, 1 and 2 were closed at exec
// (bit i for descriptor i), and which signals were ignored (bit n for
// signal n).
func execState() (closed int, ignored uint64) {
	return int(C.godu_closed()), uint64(C.godu_ignored())
}

// defaultSignal gives sig the system's default action.
func defaultSignal(sig syscall.Signal) { C.godu_default_signal(C.int(sig)) }
