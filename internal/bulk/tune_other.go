//go:build !darwin && !godu_xnu && (!linux || !cgo || purego || godu_portable)

package bulk

func tuneProcess() {}
