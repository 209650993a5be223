//go:build !linux

package bulk

import "time"

const canSample = false

func threadClock() (tid int, wall, cpu time.Duration, sleeps int64, ok bool) {
	return 0, 0, 0, 0, false
}
