//go:build godu_scarcity

package main

import "testing"

// TestReopensUnderScarcity holds the walk to at most one reopen per
// directory with only 20 descriptors. It is built only with the
// godu_scarcity tag while the walk misses it: on a 200-level comb (each
// level a file, an empty directory, a symlink and the next level; 401
// directories) it makes 4,980 openat for -s and 21,109 for -a with one
// worker (8,858 with 16), on a random tree 524 for 237 directories.
func TestReopensUnderScarcity(t *testing.T) {
	syscallsPerEntry(t, []int{20})
}
