// Command consumer is a program of another module that uses godu as a
// library; the godu module's tests build it three ways (plain, vendored
// with cgo, without cgo) and compare its output with du -sB1.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/godu-sh/godu"
)

func main() {
	tree, err := godu.Scan(context.Background(), os.Args[1], godu.Options{Summarize: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("%d\t%s\n", tree.DiskUsage, tree.Name)
}
