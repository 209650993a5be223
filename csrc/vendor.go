//go:build godu_vendor

// Package csrc holds godu's C core, which internal/bulk compiles by
// including it from its cgo preambles. It is no Go package to build: this
// file, under a tag no build sets, exists so that `go mod vendor` (which
// reads every file whatever its tags) sees internal/bulk import it and
// copies the directory, C sources included, into a consumer's vendor tree.
package csrc
