//go:build unix

package main

import (
	"os/signal"
	"syscall"
)

// keepSignals makes the signals that end du end godu, as they end du: by
// the signal, at once, without the runtime's goroutine dump (SIGQUIT,
// SIGABRT, ...) and not caught and dropped (SIGUSR1, SIGALRM, SIGXCPU,
// SIGXFSZ, ...: the runtime catches every signal it may be sent). One
// ignored at exec stays ignored, as in du (a background job's SIGQUIT, a
// pipeline's SIGPIPE). SIGHUP, SIGINT and SIGTERM keep the runtime's
// handler, which ends the process by the signal too; SIGSEGV, SIGBUS,
// SIGFPE and SIGILL its, which turns a fault into a panic.
func keepSignals(ignored uint64) {
	isIgnored := func(sig syscall.Signal) bool { return ignored&(1<<uint(sig)) != 0 }
	for _, sig := range deadlySignals {
		if isIgnored(sig) {
			signal.Ignore(sig)
		} else {
			defaultSignal(sig)
		}
	}
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM} {
		if isIgnored(sig) {
			signal.Ignore(sig)
		}
	}
}
