//go:build !cgo || !unix

package main

// execState cannot see the exec state without cgo: by the time Go code
// runs, the runtime has opened /dev/null on closed standard descriptors
// and replaced an ignored SIGPIPE's disposition. A build without cgo
// writes into that /dev/null and dies of SIGPIPE on a closed pipe, where
// du reports a write error (README: Differences). Windows has neither
// closed standard descriptors in this sense nor SIGPIPE.
func execState() (closed int, sigpipeIgnored bool) { return 0, false }
