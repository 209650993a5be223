//go:build unix && !darwin

package sys

// devNumber is a device as the readers record it: st_dev converted.
func devNumber[T int32 | uint32 | uint64](dev T) uint64 { return uint64(dev) }
