// Command hello is the start-up reference of `make startup`: a Go
// program with cgo, built as `go build` builds one, that prints a line.
package main

// static int one(void) { return 1; }
import "C"

import "fmt"

func main() { fmt.Println("hello", C.one()) }
