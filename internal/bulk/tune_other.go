//go:build !darwin && (!linux || !cgo || purego)

package bulk

func tuneProcess() {}
