//go:build unix

package main

import "testing"

// TestReopensUnderScarcity holds the walk to at most one reopen per
// directory with only 20 descriptors: a directory whose ancestors'
// descriptors were shed is reopened by one openat2 from the nearest open
// ancestor, not walked down to level by level. (Before: on a 200-level comb
// of 401 directories, 4,980 openat for -s and 21,109 for -a with one
// worker.) Run before TestMillionEntries in one test process it made that
// test's godu -s seem to peak at 615-1,000 MiB: the figure was this
// process's own peak, handed to the child at exec (peakRSS).
func TestReopensUnderScarcity(t *testing.T) {
	syscallsPerEntry(t, []int{20})
}
