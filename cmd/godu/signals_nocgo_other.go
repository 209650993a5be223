//go:build !cgo && unix && !linux

package main

import "syscall"

// defaultSignal leaves sig to the runtime where neither cgo nor a raw
// rt_sigaction is to be had.
func defaultSignal(sig syscall.Signal) {}
