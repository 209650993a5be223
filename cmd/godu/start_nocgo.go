//go:build !cgo || !unix

package main

// execState cannot see the exec state without cgo: by the time Go code
// runs, the runtime has opened /dev/null on closed standard descriptors
// and replaced ignored signals' dispositions (but for SIGHUP's and
// SIGINT's). A build without cgo writes into that /dev/null and dies of
// SIGPIPE on a closed pipe, where du reports a write error, and is ended
// by a signal ignored at exec that would end du (README: Differences).
// Windows has neither closed standard descriptors in this sense nor
// these signals.
func execState() (closed int, ignored uint64) { return 0, 0 }
