//go:build cgo && unix

package main

// What the process was given at exec, seen before the Go runtime starts:
// the runtime opens /dev/null on a closed standard descriptor and installs
// its own handlers for most signals, after which neither can be told any
// more. A C constructor runs before both.

/*
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#ifdef __linux__
#include <sched.h>
#include <sys/syscall.h>
#endif

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

#ifdef __linux__
// godu_batch_at_exec puts the process under SCHED_BATCH before the Go
// runtime starts a thread: every thread inherits it, for one system call
// (bulk.TuneProcess otherwise switches each thread found in /proc, which
// cost 0.1 ms at every start). Only from the default policy, and only
// while the load average of the last minute is below the CPUs the
// process may use: beside programs that keep every CPU busy, a thread
// that wakes and does not preempt waits for their slices (README,
// Threads that wake do not preempt the walk). GODU_LOADAVG stands for
// the load average in tests. The policy calls are made as system calls:
// musl's sched_getscheduler and sched_setscheduler fail with ENOSYS
// whatever the kernel offers, and the static build links musl.
__attribute__((constructor)) static void godu_batch_at_exec(void) {
	if (syscall(SYS_sched_getscheduler, 0) != SCHED_OTHER)
		return;
	char buf[64];
	const char *load = getenv("GODU_LOADAVG");
	if (!load) {
		int fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return;
		ssize_t n = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (n <= 0)
			return;
		buf[n] = 0;
		load = buf;
	}
	cpu_set_t set;
	char *end;
	double avg = strtod(load, &end);
	if (end == load || sched_getaffinity(0, sizeof set, &set) != 0 || avg >= CPU_COUNT(&set))
		return;
	struct sched_param p = {0};
	syscall(SYS_sched_setscheduler, 0, SCHED_BATCH, &p);
}
#endif

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
