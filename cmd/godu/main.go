// Command godu summarises disk usage like GNU du, with the same options,
// numbers and output, many times faster on large trees.
package main

import (
	"os"
	"runtime"
	"time"

	"github.com/godu-sh/godu/internal/bulk"
)

func init() {
	// No allocation profile is ever read: recording one costs a stack
	// walk per sampled allocation and page faults at start-up.
	runtime.MemProfileRate = 0
	// The runtime's poller takes a descriptor (epoll) the first time any
	// timer is set, the garbage collector's own included, and cannot live
	// without it: set one now, while descriptors are to be had, rather
	// than in the middle of a walk that has used them all.
	time.AfterFunc(time.Hour, func() {}).Stop()
}

func main() {
	bulk.TuneProcess() // the command's process-wide settings, never a library's
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
