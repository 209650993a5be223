// Command godu summarises disk usage like GNU du, with the same options,
// numbers and output, many times faster on large trees.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
