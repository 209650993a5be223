// Command godu summarises disk usage like GNU du, with the same options,
// numbers and output, many times faster on large trees.

// The runtime would hold two descriptors for the life of the process to
// follow a container's CPU quota (cgroup files); under a low descriptor
// limit those are the ones the walk needs.
//
//go:debug containermaxprocs=0
package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"syscall"

	"github.com/godu-sh/godu/internal/bulk"
	"github.com/godu-sh/godu/internal/du"
	"github.com/godu-sh/godu/internal/walk"
)

// stdin is where "-" of --files0-from and --exclude-from reads.
var stdin io.Reader = os.Stdin

func init() {
	// No allocation profile is ever read: recording one costs a stack
	// walk per sampled allocation and page faults at start-up.
	runtime.MemProfileRate = 0
	// The runtime's poller needs two descriptors (epoll, eventfd) the
	// first time any timer is set, the garbage collector's own included,
	// and dies without them: take them now, while descriptors are to be
	// had, rather than in the middle of a walk that has used them all;
	// below that limit, say so in one line.
	if !spareDescriptors(2) {
		fmt.Fprintf(os.Stderr, "%s: cannot start: %s (the Go runtime needs 2 descriptors beyond 0, 1 and 2)\n",
			os.Args[0], du.ErrorText(syscall.EMFILE))
		os.Exit(1)
	}
	walk.StartPoller()
}

// failing is a standard stream that was closed when godu started: every
// read or write fails as it did for du, whose descriptor stays closed.
type failing struct{ err error }

func (f failing) Read([]byte) (int, error)  { return 0, f.err }
func (f failing) Write([]byte) (int, error) { return 0, f.err }

func main() {
	bulk.TuneProcess() // the command's process-wide settings, never a library's
	closed, ignored := execState()
	keepSignals(ignored)
	var stdout, stderr io.Writer = os.Stdout, os.Stderr
	if closed&(1<<1) != 0 {
		stdout = failing{du.ErrNotOpen}
	}
	if closed&(1<<2) != 0 {
		stderr = failing{du.ErrNotOpen}
	}
	if closed&(1<<0) != 0 {
		stdin = failing{du.ErrNotOpen}
	}
	code := run(os.Args[1:], stdout, stderr)
	if p := os.Getenv("GODU_SCARCITY_STATS"); p == "-" {
		// For tests: how the walks went around a shortage of descriptors,
		// to a file, or to stderr where none can be opened.
		io.WriteString(os.Stderr, walk.ScarcityStats())
	} else if p != "" {
		os.WriteFile(p, []byte(walk.ScarcityStats()), 0o600)
	}
	os.Exit(code)
}
