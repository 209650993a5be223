//go:build unix

package walk

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/godu-sh/godu/internal/testtree"
)

// chain makes a chain of depth directories, each holding a file, and
// returns its operand.
func chain(t testing.TB, depth int) string {
	dir := t.TempDir()
	return filepath.Join(dir, testtree.Generate(t, dir, testtree.Shape{Kind: "chain", Size: depth}))
}

// comb is a comb of depth levels (testtree: each level a file, an empty
// tooth directory and a symlink beside the next level, which sorts first).
func comb(t testing.TB, depth int) string {
	dir := t.TempDir()
	return filepath.Join(dir, testtree.Generate(t, dir, testtree.Shape{Kind: "comb", Size: depth}))
}

// linkedChain is chain with each file's second link outside the chain.
func linkedChain(t testing.TB, depth int) string {
	dir := t.TempDir()
	return filepath.Join(dir, testtree.Generate(t, dir, testtree.Shape{Kind: "chain", Size: depth, Outside: true}))
}

// walkAllocs is the bytes one walk of root allocates.
func walkAllocs(t testing.TB, opts Options, root string) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if _, err := New(opts).Walk(context.Background(), root); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestDepthLinear: a walk's memory traffic grows linearly with a chain's
// depth, for -s, -a and -d 2 alike: nothing costs O(depth) per directory
// (a path built by recursion from the root at every directory made the
// bytes grow with the cube of the depth; 2,000 levels allocated 1.4 GB).
func TestDepthLinear(t *testing.T) {
	small, big := 1000, 4000
	if testing.Short() {
		small, big = 500, 2000
	}
	for _, c := range []struct {
		name  string
		chain func(testing.TB, int) string
	}{{"chain", chain}, {"linked", linkedChain}} {
		t.Run(c.name, func(t *testing.T) { depthLinear(t, c.chain(t, small), c.chain(t, big), small, big) })
	}
}

// depthLinear compares the bytes walks of chains a and b allocate. In
// the linked chain every file has a second link (outside the chain): the
// links found below the -d limit were handed up level by level, their
// names growing by a level each time (2,000 levels at -d 3: 3 s, 60 MB;
// du 0.05 s).
func depthLinear(t *testing.T, a, b string, small, big int) {
	for _, opts := range []Options{
		{Jobs: 1, MaxDepth: 0, Stream: func(string, *Node) {}},
		{Jobs: 4, MaxDepth: -1, ListFiles: true, Stream: func(string, *Node) {}},
		{Jobs: 3, MaxDepth: 2, Stream: func(string, *Node) {}},
		{Jobs: 2, MaxDepth: 3, ListFiles: true, Stream: func(string, *Node) {}},
		{Jobs: 16, MaxDepth: 2},
		{Jobs: 2, MaxDepth: -1, OnNode: func(string, *Node) {}},
	} {
		sa, sb := walkAllocs(t, opts, a), walkAllocs(t, opts, b)
		// Streaming every entry prints paths, which are O(depth) each:
		// du's own output is quadratic there. The rest must be linear.
		limit := float64(big/small) * 1.5
		if opts.MaxDepth < 0 {
			limit = float64(big/small) * float64(big/small) * 1.2
		}
		t.Logf("jobs %d depth %d: %d levels %d KiB, %d levels %d KiB (×%.2f)", opts.Jobs, opts.MaxDepth,
			small, sa>>10, big, sb>>10, float64(sb)/float64(sa))
		if float64(sb) > limit*float64(sa)+(1<<20) {
			t.Errorf("jobs %d depth %d: %d levels allocate %d KiB, %d levels %d KiB: ×%.1f for ×%d the depth",
				opts.Jobs, opts.MaxDepth, small, sa>>10, big, sb>>10, float64(sb)/float64(sa), big/small)
		}
	}
}

// TestPath: a dir's path is its names joined as Join joins them.
func TestPath(t *testing.T) {
	for _, root := range []string{"t", "t/", "/", "", "a/b", "./"} {
		want := root
		d := &dir{name: root}
		if got := d.path(); got != want {
			t.Errorf("root %q: path %q", root, got)
		}
		for _, name := range []string{"x", "yy", "z"} {
			d = &dir{parent: d, name: name}
			want = Join(want, name)
			if got := d.path(); got != want {
				t.Errorf("root %q: path %q, want %q", root, got, want)
			}
		}
	}
}

// BenchmarkDepth walks chains of doubling depth with -s: ns/op over
// levels stays flat when the walk is linear in depth (the cycle check
// looked at every ancestor of every directory, in Go and in the core).
//
// linked: every file also linked outside the chain, walked as the
// library walks (the whole tree kept, links charged after the walk): the
// charge walked up from every link (20,000 levels: 9.5 s, 1.8 s now).
//
// comb-a: a comb listed whole by one worker (godu -j1 -a): the heap of
// waiting directories compared teeth of distant levels by walking up
// between them (order.go's before: 8,000 levels, 2.4 s before, 0.35 s
// now).
func BenchmarkDepth(b *testing.B) {
	// Each case builds its tree when it runs: one selected with -bench
	// builds no other's (b.Loop starts timing at its first call).
	for _, levels := range []int{2500, 5000, 10000, 20000} {
		b.Run(fmt.Sprint("levels=", levels), func(b *testing.B) {
			root := chain(b, levels)
			opts := Options{MaxDepth: 0, Stream: func(string, *Node) {}}
			for b.Loop() {
				if _, err := New(opts).Walk(context.Background(), root); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(levels), "ns/level")
		})
		b.Run(fmt.Sprint("comb-a/levels=", levels/2), func(b *testing.B) {
			teeth := comb(b, levels/2)
			opts := Options{Jobs: 1, MaxDepth: -1, ListFiles: true, Stream: func(string, *Node) {}}
			for b.Loop() {
				if _, err := New(opts).Walk(context.Background(), teeth); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(levels/2), "ns/level")
		})
		b.Run(fmt.Sprint("linked/levels=", levels), func(b *testing.B) {
			linked := linkedChain(b, levels)
			opts := Options{MaxDepth: -1}
			for b.Loop() {
				if _, err := New(opts).Walk(context.Background(), linked); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(levels), "ns/level")
		})
	}
}

// walkHeld is the most live heap a streamed walk of root holds, sampled
// after a collection every 200 entries handed out.
func walkHeld(t testing.TB, opts Options, root string) uint64 {
	var most uint64
	n := 0
	opts.Stream = func(string, *Node) {
		if n++; n%200 == 0 {
			var m runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&m)
			most = max(most, m.HeapAlloc)
		}
	}
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	if _, err := New(opts).Walk(context.Background(), root); err != nil {
		t.Fatal(err)
	}
	return most - min(most, base.HeapAlloc)
}

// TestDepthHeldLinear: what a streamed walk of a chain holds grows
// linearly with its depth, every entry listed: the emitter held each
// open directory's path as a string of its own (O(depth²) bytes: 450 MB
// at 20,000 levels; du holds one path buffer).
func TestDepthHeldLinear(t *testing.T) {
	small, big := 1000, 4000
	a, b := chain(t, small), chain(t, big)
	for _, opts := range []Options{
		{Jobs: 1, MaxDepth: -1, ListFiles: true},
		{Jobs: 4, MaxDepth: -1},
		{Jobs: 2, MaxDepth: -1, ListFiles: true, Details: true, OnEnter: func(string, *Node) {}},
	} {
		ha, hb := walkHeld(t, opts, a), walkHeld(t, opts, b)
		t.Logf("jobs %d list %v: %d levels hold %d KiB, %d levels %d KiB", opts.Jobs, opts.ListFiles, small, ha>>10, big, hb>>10)
		if float64(hb) > float64(big/small)*1.5*float64(ha)+(1<<20) {
			t.Errorf("jobs %d list %v: %d levels hold %d KiB, %d levels %d KiB: ×%.1f for ×%d the depth",
				opts.Jobs, opts.ListFiles, small, ha>>10, big, hb>>10, float64(hb)/float64(ha), big/small)
		}
	}
}

// TestChainHeldPerLevel: on a chain whose every level holds a file that
// sorts after its subdirectory, -a lists each level's file only once
// everything below it is out, so every level waits on the stream with
// one file listed; each holds a few hundred bytes for it, not a chunk
// sized for a big directory (1,100 bytes a level: a chain of 20,000
// such levels peaked at 53 MB against du's 10).
func TestChainHeldPerLevel(t *testing.T) {
	const levels = 1000
	root := t.TempDir()
	p := root
	for i := 0; i < levels; i++ {
		if err := os.WriteFile(filepath.Join(p, "z"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		p = filepath.Join(p, "a")
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var walk atomic.Pointer[scan]
	defer func() { visitHook = nil }()
	visitHook = func(sc *scan, d *dir) { walk.Store(sc) }
	for _, jobs := range []int{1, 4} {
		// Sampled as each line goes: the most is held as the first goes,
		// the bottom's, every level above waiting.
		var most int64
		lines := 0
		opts := Options{MaxDepth: -1, ListFiles: true, Jobs: jobs, Stream: func(string, *Node) {
			lines++
			if sc := walk.Load(); sc != nil && sc.em != nil {
				most = max(most, sc.em.held.Load())
			}
		}}
		if _, err := New(opts).Walk(context.Background(), root); err != nil {
			t.Fatal(err)
		}
		if lines != 2*levels+1 {
			t.Fatalf("jobs %d: %d lines, want %d", jobs, lines, 2*levels+1)
		}
		if per := most / levels; per > 256 {
			t.Errorf("jobs %d: %d bytes held a level (%d in all)", jobs, per, most)
		}
	}
}
