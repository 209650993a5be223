//go:build unix

package walk

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestShareAndSpin compares walks that share a directory's subdirectories
// with a free worker and spin for work (share.go) with walks that do
// neither: same totals at every reported node, same counts, same stream.
// Whether a slot is free as a directory is visited depends on timing, so
// each walk also runs as if one always were (shareAlways), where every
// directory of two or more subdirectories shares them; and spinning
// workers wait for an hour, so that a walk ends only if they stop when
// no worker runs that could push more. Each walk has a minute.
func TestShareAndSpin(t *testing.T) {
	defer func(on bool, d time.Duration) { shareIdle, shareAlways, spinFor = on, false, d }(shareIdle, spinFor)
	root := randomTree(t, 11)
	within := func(name string, f func()) {
		t.Helper()
		done := make(chan struct{})
		go func() { f(); close(done) }()
		select {
		case <-done:
		case <-time.After(time.Minute):
			t.Fatalf("%s: the walk did not end in a minute", name)
		}
	}
	for _, opts := range []Options{
		{MaxDepth: 0}, {MaxDepth: -1}, {MaxDepth: -1, Jobs: 16}, {MaxDepth: 2, Jobs: 3},
		{MaxDepth: -1, ListFiles: true, Jobs: 2}, {MaxDepth: -1, CountLinks: true, Jobs: 2},
		{MaxDepth: 0, Jobs: 1},
	} {
		shareIdle, shareAlways, spinFor = false, false, 0
		wantStream := treeEntries(t, opts, root)
		var want map[string]Totals
		var wantStats Stats
		if !opts.ListFiles { // (report's OnNode check counts directories only)
			want, wantStats = report(t, opts, root)
		}
		for _, always := range []bool{false, true} {
			shareIdle, shareAlways, spinFor = true, always, time.Hour
			shares := sharesOut.Load()
			name := fmt.Sprintf("%+v always free %v", opts, always)
			if want != nil {
				within(name, func() {
					got, stats := report(t, opts, root)
					sameReport(t, name, got, want, stats, wantStats)
				})
			}
			within(name+" (stream)", func() {
				if got := streamEntries(t, opts, root); strings.Join(got, "\n") != strings.Join(wantStream, "\n") {
					t.Errorf("%s: the stream differs from the tree's without sharing", name)
				}
			})
			// (Listing files, a walk reads every directory itself.)
			if always && subtreeWalk && !opts.ListFiles && sharesOut.Load() == shares {
				t.Errorf("%s: no directory shared its subdirectories", name)
			}
		}
	}
}
