//go:build !linux

package walk

// reopenBeneath: no openat2 here; the caller walks down from the nearest
// ancestor that holds a descriptor, one O_NOFOLLOW open a level.
func (sc *scan) reopenBeneath(d *dir, flags int) (int, bool, error) { return -1, false, nil }
