//go:build !darwin && !godu_xnu && (!linux || !cgo || purego)

package bulk

func tuneProcess() {}
