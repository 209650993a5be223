//go:build unix && !linux

package main

import "syscall"

// deadlySignals are the asynchronous signals whose default action ends
// the process on every BSD and macOS, and that the Go runtime would catch
// otherwise.
var deadlySignals = []syscall.Signal{
	syscall.SIGQUIT, syscall.SIGTRAP, syscall.SIGABRT, syscall.SIGUSR1, syscall.SIGUSR2,
	syscall.SIGPIPE, syscall.SIGALRM, syscall.SIGXCPU, syscall.SIGXFSZ,
	syscall.SIGVTALRM, syscall.SIGPROF, syscall.SIGSYS,
}
