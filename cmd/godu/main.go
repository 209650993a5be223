// Command godu summarises disk usage like GNU du, with the same options,
// numbers and output, many times faster on large trees.
package main

import (
	"os"
	"runtime"
)

func init() {
	// No allocation profile is ever read: recording one costs a stack
	// walk per sampled allocation and page faults at start-up.
	runtime.MemProfileRate = 0
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
