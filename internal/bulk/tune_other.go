//go:build !darwin && (!linux || !cgo || purego || godu_portable)

package bulk

func tuneProcess() {}
