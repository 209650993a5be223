//go:build unix

package walk

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/godu-sh/godu/internal/bulk"
)

// filesTree makes a binary tree of directories, levels deep, with files
// empty files in every directory (the shape of make scale's trees), and
// returns its root and how many entries it holds.
func filesTree(t testing.TB, levels, files int) (string, int) {
	root := filepath.Join(t.TempDir(), "t")
	entries := 0
	var mk func(dir string, levels int)
	mk = func(dir string, levels int) {
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		entries++
		for i := 0; i < files; i++ {
			f, err := os.Create(filepath.Join(dir, "f"+strconv.Itoa(i)))
			if err != nil {
				t.Fatal(err)
			}
			f.Close()
			entries++
		}
		if levels > 1 {
			mk(filepath.Join(dir, "a"), levels-1)
			mk(filepath.Join(dir, "b"), levels-1)
		}
	}
	mk(root, levels)
	return root, entries
}

// walkCost is what one walk of root by w allocates: bytes and objects,
// and whether it made a set of subtree walk buffers (bulk.TreeSetsMade).
func walkCost(t testing.TB, w *Walker, root string) (bytes, objects uint64, made bool) {
	var before, after runtime.MemStats
	runtime.GC()
	sets := bulk.TreeSetsMade.Load()
	runtime.ReadMemStats(&before)
	if _, err := w.Walk(context.Background(), root); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc, after.Mallocs - before.Mallocs, bulk.TreeSetsMade.Load() != sets
}

// leastCost is the least of what walks of root by w allocate, bytes and
// objects each on its own, over five walks that made no set of subtree
// walk buffers: a collection's own allocations (or another test's), or a
// directory handed between workers, land in one walk's figures, never in
// every one's; and a set the buffer pool did not give back (it was put
// on one P and asked for on another) is a fixed cost of 400 kB, whatever
// the entries (in every one of five walks of a CI run: 50 bytes an extra
// entry). It fails when no walk of twenty made none.
func leastCost(t testing.TB, w *Walker, root string) (bytes, objects uint64) {
	clean := 0
	for try := 0; try < 20 && clean < 5; try++ {
		b, o, made := walkCost(t, w, root)
		if made {
			continue
		}
		if clean == 0 {
			bytes, objects = b, o
		}
		bytes, objects = min(bytes, b), min(objects, o)
		clean++
	}
	if clean == 0 {
		t.Fatalf("%s: every one of twenty walks made a set of subtree walk buffers", root)
	}
	return bytes, objects
}

// TestAllocsPerEntry: what a walk allocates beyond its fixed buffers grows
// with the entries by no more than a few bytes each, for every output
// that streams (-s, -d, -a, the export's details): garbage in proportion
// to the entries is what filled godu's heap up to its first collection on
// large trees, and the peak RSS with it (the stream allocated each file's
// path and name, 93 bytes a file). The walks run on trees of the same
// shape, one four times the other: the difference is what the extra
// entries cost, whatever the walk's fixed cost. The bounds leave room for
// how busy the workers are (more of them list directories ahead of the
// stream, whose pooled buffers then run short); the stream's allocations
// of every file's path and name were 131 bytes and 2.4 objects an entry.
func TestAllocsPerEntry(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	if bulk.Variant == "portable" {
		t.Skip("the portable reader (the BSDs', illumos', Solaris') allocates a string per name (unix.ParseDirent): 2 objects an entry")
	}
	if onXnu {
		t.Skip("godu_xnu: the getattrlistbulk emulation (test code) allocates as it packs records")
	}
	small, ns := filesTree(t, 6, 40) // 63 directories, 2,583 entries
	big, nb := filesTree(t, 8, 40)   // 255 directories, 10,455 entries
	extra := float64(nb - ns)
	discard := func(string, *Node) {}
	on, spin, yieldMin := shareIdle, spinFor, bulk.YieldMin
	defer func() { shareIdle, shareAlways, spinFor, bulk.YieldMin = on, false, spin, yieldMin }()
	// How work passes between workers: as the walk runs (asRun); with no
	// directory handed from one worker to another but through the stack
	// (handsOff: no sharing, no spinning worker, subtree walks ending for
	// a free worker only past 256 entries, as before sharing); or with
	// every directory shared. A directory handed on, by sharing or by a
	// subtree walk ending early, is visited as a walk without subtree
	// walks visits each: about 4 objects and 480 bytes a directory, its
	// descriptor made when it is read among them (13 bytes and 0.085-0.096
	// objects an entry here, every one shared), as
	// often as workers are found free; the bounds of 4 bytes and 0.02
	// objects hold only where none is (0.021 measured as run at 4 jobs).
	asRun := func() {}
	handsOff := func() { shareIdle, spinFor, bulk.YieldMin = false, 0, 256 }
	shared := func() { shareAlways = true }
	for _, c := range []struct {
		name          string
		opts          Options
		sched         func()
		bytes, allocs float64 // per extra entry, at most
	}{
		{"-s", Options{MaxDepth: 0, Stream: discard}, handsOff, 4, 0.02},
		{"-d 3", Options{MaxDepth: 3, Stream: discard}, handsOff, 4, 0.02},
		{"-s as run", Options{MaxDepth: 0, Stream: discard}, asRun, 20, 0.1},
		{"-s shared", Options{MaxDepth: 0, Stream: discard}, shared, 20, 0.12},
		{"-a", Options{MaxDepth: -1, ListFiles: true, Stream: discard}, asRun, 80, 0.5},
		{"export", Options{MaxDepth: -1, ListFiles: true, Details: true, Stream: discard, OnEnter: discard}, asRun, 80, 0.5},
	} {
		shareIdle, shareAlways, spinFor, bulk.YieldMin = on, false, spin, yieldMin
		c.sched()
		for _, jobs := range []int{1, 4} {
			c.opts.Jobs = jobs
			// One Walker, its workers made by a first walk of the big
			// tree: a worker's buffers are a fixed cost of the walk,
			// however many entries it reads, but how many workers a walk
			// starts varies from run to run.
			w := New(c.opts)
			walkCost(t, w, big)
			// (Taking one pair of walks whole, chosen by bytes, kept the
			// objects of a walk whose workers were started and stopped
			// again on a busy machine: 0.058 objects an extra entry in one
			// CI run.)
			bs, objS := leastCost(t, w, small)
			bb, objB := leastCost(t, w, big)
			perB := (float64(bb) - float64(bs)) / extra
			perO := (float64(objB) - float64(objS)) / extra
			t.Logf("%s jobs %d: %d entries %d B %d objects, %d entries %d B %d objects: %.1f B and %.3f objects an extra entry",
				c.name, jobs, ns, bs, objS, nb, bb, objB, perB, perO)
			if perB > c.bytes || perO > c.allocs {
				t.Errorf("%s jobs %d: %.1f bytes and %.3f objects allocated per extra entry, over %.0f and %.2f",
					c.name, jobs, perB, perO, c.bytes, c.allocs)
			}
		}
	}
}
