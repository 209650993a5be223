//go:build !linux

package bulk

func schedBatch() {}
