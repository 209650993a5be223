//go:build !cgo || purego || !(linux || darwin)

package bulk

func tuneProcess() {}
