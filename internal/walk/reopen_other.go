//go:build !linux && !darwin

package walk

// reopenBeneath: no openat2 here; the caller walks down from the nearest
// ancestor that holds a descriptor, one O_NOFOLLOW open a level.
func (r *run) reopenBeneath(d *dir, flags int) (int, bool) { return -1, false }
