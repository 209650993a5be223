//go:build unix

package walk

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/godu-sh/godu/internal/bulk"
)

// treeEntries is a walk's printed entries in order (path, totals, own
// totals), from the tree Walk returns, then the walker's counts.
func treeEntries(t *testing.T, opts Options, paths ...string) []string {
	out, w := treeLines(t, opts, entryString, paths...)
	return append(out, fmt.Sprintf("stats %+v", w.Stats()))
}

// treeLines walks paths with one walker and returns the line of each entry of
// the trees Walk returns, in order, and the walker.
func treeLines(t *testing.T, opts Options, line func(string, *Node) string, paths ...string) ([]string, *Walker) {
	w := New(opts)
	var out []string
	for _, p := range paths {
		n, err := w.Walk(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		if n != nil {
			n.Walk(func(p string, n *Node) { out = append(out, line(p, n)) })
		}
	}
	return out, w
}

// streamEntries is treeEntries from an ordered stream (Options.Stream).
func streamEntries(t *testing.T, opts Options, paths ...string) []string {
	var out []string
	opts.Stream = func(p string, n *Node) { out = append(out, entryString(p, n)) }
	w := New(opts)
	for _, p := range paths {
		n, err := w.Walk(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		if n != nil && (len(out) == 0 || out[len(out)-1] != entryString(p, n)) {
			t.Errorf("%s: the root returned is not the last streamed", p)
		}
		if n != nil && len(n.Children) > 0 {
			t.Errorf("%s: a streamed walk kept %d children", p, len(n.Children))
		}
	}
	return append(out, fmt.Sprintf("stats %+v", w.Stats()))
}

func entryString(p string, n *Node) string {
	return fmt.Sprintf("%s dir=%v %+v own %+v", p, n.IsDir, n.Totals, n.Own)
}

// TestStreamIsTheTree: the stream hands out exactly what the tree Walk
// returns holds, in the tree's order (du's), with the same figures (hard
// links charged to the same first link) and counts, for every option that
// changes what is reported or how, every worker count, with and without
// subtree walks at several budgets, files spilled to the spill file in
// runs of several lengths, and over several operands sharing hard links.
func TestStreamIsTheTree(t *testing.T) {
	defer func(b, s int, on bool) { subtreeBudgetMin, spillAt, subtreeWalk = b, s, on }(subtreeBudgetMin, spillAt, subtreeWalk)
	k := 0 // two of the four budgets a walk, the other two at the next seed
	for seed := int64(1); seed <= 3; seed++ {
		path := randomTree(t, seed)
		operands := [][]string{{path}, {filepath.Join(path, "d1"), path}}
		for _, opts := range []Options{
			{MaxDepth: -1}, {MaxDepth: -1, ListFiles: true}, {MaxDepth: 0}, {MaxDepth: 0, ListFiles: true},
			{MaxDepth: 1}, {MaxDepth: 2, ListFiles: true, Jobs: 1}, {MaxDepth: 3, Jobs: 16},
			{MaxDepth: -1, ListFiles: true, Time: bulk.MTime, Jobs: 3}, {MaxDepth: -1, CountLinks: true, ListFiles: true},
			{MaxDepth: 2, OneFileSystem: true}, {MaxDepth: -1, ListFiles: true, Exclude: func(p string) bool { return strings.HasSuffix(p, "1") }},
		} {
			for _, ops := range operands {
				o := opts
				o.HashAll = len(ops) > 1
				k++
				for i, budget := range []int{0, 1, 50, 1 << 20} {
					if (i+k+int(seed))%2 != 0 {
						continue
					}
					subtreeWalk, subtreeBudgetMin = budget > 0 && bulk.CanTree, max(budget, 1)
					spillAt = []int{1 << 20, 300, 1, 5000}[i] // files spilled in runs of every length
					want := treeEntries(t, o, ops...)
					got := streamEntries(t, o, ops...)
					if strings.Join(got, "\n") != strings.Join(want, "\n") {
						for i := range min(len(got), len(want)) {
							if got[i] != want[i] {
								t.Fatalf("seed %d %+v %d operands budget %d: entry %d\n got %s\nwant %s", seed, opts, len(ops), budget, i, got[i], want[i])
							}
						}
						t.Fatalf("seed %d %+v %d operands budget %d: %d entries, want %d", seed, opts, len(ops), budget, len(got), len(want))
					}
				}
			}
		}
	}
}

// TestHeldWaitsForTheStream: while the directory the stream waits on is
// slow to read, the other workers read ahead only until heldBudget waits:
// what they list beyond it is not read until the stream moves on. The
// lines are those of one worker all the same.
func TestHeldWaitsForTheStream(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 200; i++ {
		d := filepath.Join(root, "b", fmt.Sprintf("dir-%03d", i))
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for j := 0; j < 40; j++ {
			if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("a-file-named-%02d", j)), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	defer func(b int64) { heldBudget, visitHook = b, nil }(heldBudget)
	heldBudget = 16 << 10
	var peak atomic.Int64
	hook := func(sc *scan, d *dir) {
		if sc.em == nil {
			return
		}
		if d.name == "a" {
			time.Sleep(300 * time.Millisecond) // the others read on meanwhile
		}
		if h := sc.em.held.Load(); h > peak.Load() {
			peak.Store(h)
		}
	}
	// Ended meanwhile, the walk ends: no worker waits on the stream,
	// which waits on what will not be read now.
	for i := 0; i < 20; i++ {
		if err := os.MkdirAll(filepath.Join(root, "a", fmt.Sprint(i)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	visitHook = func(sc *scan, d *dir) {
		if d.name == "a" {
			time.Sleep(300 * time.Millisecond)
			cancel()
		}
	}
	done := make(chan error)
	go func() {
		_, err := New(Options{MaxDepth: -1, ListFiles: true, Jobs: 4, Stream: func(string, *Node) {}}).Walk(ctx, root)
		done <- err
	}()
	select {
	case err := <-done:
		if err != context.Canceled {
			t.Errorf("ended walk: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the walk, ended, did not return")
	}
	visitHook = hook
	for _, jobs := range []int{2, 4, 16} {
		peak.Store(0)
		opts := Options{MaxDepth: -1, ListFiles: true, Jobs: jobs}
		got := streamEntries(t, opts, root)
		// What b's directories list is about 40 files of 45 bytes each:
		// past the budget, at most one directory a worker more.
		if p := peak.Load(); p > heldBudget+int64(jobs)*4<<10 {
			t.Errorf("jobs %d: %d bytes waited on the stream, budget %d", jobs, p, heldBudget)
		}
		opts.Jobs = 1
		if want := treeEntries(t, opts, root); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("jobs %d: the stream differs from the tree", jobs)
		}
	}
}

// TestLinksHeldAsFiles: a directory of hard-linked files waits on the
// stream in about the memory of one of plain files (a link took 110
// bytes and a string of its own, a file 20: a directory of 409,500
// links, listed with -a, held 200 MB).
func TestLinksHeldAsFiles(t *testing.T) {
	const n = 10000
	root := t.TempDir()
	for _, d := range []string{"files", "links", "z-elsewhere"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("a-name-%05d", i)
		if err := os.WriteFile(filepath.Join(root, "files", name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "links", name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(filepath.Join(root, "links", name), filepath.Join(root, "z-elsewhere", name)); err != nil {
			t.Fatal(err)
		}
	}
	opts := Options{MaxDepth: -1, ListFiles: true, Jobs: 1}
	files := walkHeld(t, opts, filepath.Join(root, "files"))
	links := walkHeld(t, opts, filepath.Join(root, "links"))
	t.Logf("%d files held %d bytes, %d links %d", n, files, n, links)
	if links > files+40*n {
		t.Errorf("%d links held %d bytes more than %d files", n, links-files, n)
	}
	// Below the -d limit, the links wait for the directory that holds
	// them to complete (links, until y is read): packed as well. Against
	// the same walk of files, which nothing holds.
	for _, d := range []string{"files", "links"} {
		for i := 0; i < 400; i++ {
			if err := os.MkdirAll(filepath.Join(root, d, "y", fmt.Sprint(i)), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	opts = Options{MaxDepth: 0, SeparateDirs: true, Jobs: 1}
	files = heldBelow(t, opts, filepath.Join(root, "files"), "y")
	links = heldBelow(t, opts, filepath.Join(root, "links"), "y")
	t.Logf("below the -d limit, %d files held %d bytes, %d links %d", n, files, n, links)
	if links > files+40*n {
		t.Errorf("below the -d limit, %d links held %d bytes more than %d files", n, links-files, n)
	}
}

// heldBelow is the most live heap a streamed walk of root holds, sampled
// after a collection as it reads every 20th directory in one named under.
// Without subtree walks, which read small directories without a visit
// (which ones depends on the file system: on tmpfs every one below y).
func heldBelow(t *testing.T, opts Options, root, under string) uint64 {
	defer func(on bool) { visitHook, subtreeWalk = nil, on }(subtreeWalk)
	subtreeWalk = false
	most, visits := uint64(0), 0
	visitHook = func(sc *scan, d *dir) {
		if d.parent != nil && d.parent.name == under {
			if visits++; visits%20 == 0 {
				var m runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&m)
				most = max(most, m.HeapAlloc)
			}
		}
	}
	opts.Stream = func(string, *Node) {}
	var base runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&base)
	if _, err := New(opts).Walk(context.Background(), root); err != nil {
		t.Fatal(err)
	}
	if most == 0 {
		t.Fatalf("no directory below %s sampled", under)
	}
	return most - min(most, base.HeapAlloc)
}

// TestDroppedReleasesHeld: following symlinks, a directory read at a
// second path is dropped, never entered by the stream: what it listed no
// longer counts as waiting (it stayed, and past heldBudget kept the
// workers to what the stream waits on for the rest of the walk).
func TestDroppedReleasesHeld(t *testing.T) {
	root := t.TempDir()
	big := filepath.Join(root, "big")
	if err := os.Mkdir(big, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2000; i++ {
		if err := os.WriteFile(filepath.Join(big, fmt.Sprintf("file-%04d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("big", filepath.Join(root, "a-link")); err != nil {
		t.Fatal(err)
	}
	defer func() { visitHook = nil }()
	for _, list := range []bool{false, true} {
		for _, jobs := range []int{1, 4} {
			var last atomic.Pointer[scan]
			visitHook = func(s *scan, d *dir) { last.Store(s) }
			opts := Options{FollowAll: true, MaxDepth: -1, ListFiles: list, Jobs: jobs, Stream: func(string, *Node) {}}
			if _, err := New(opts).Walk(context.Background(), root); err != nil {
				t.Fatal(err)
			}
			if h := last.Load().em.held.Load(); h != 0 {
				t.Errorf("-a %v, %d jobs: %d bytes still held after the walk", list, jobs, h)
			}
		}
	}
}

// TestSpillFailureOnce: where the spill file cannot be made (TMPDIR
// missing), a directory's files stay in memory and the stream is the
// same, and the walk stops trying: one sorted run attempted, not one per
// file listed past spillAt (which made -a quadratic: 20,000 files took
// 50 s).
func TestSpillFailureOnce(t *testing.T) {
	defer func(s int) { spillAt = s }(spillAt)
	dir := t.TempDir()
	for i := range 3000 {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%05d", i)), nil, 0o644)
	}
	opts := Options{MaxDepth: -1, ListFiles: true, Jobs: 2}
	spillAt = 1 << 30
	want := streamEntries(t, opts, dir)
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "none"))
	spillAt = 64
	tries := spillSorts.Load()
	got := streamEntries(t, opts, dir)
	if n := spillSorts.Load() - tries; n > 1 {
		t.Errorf("%d runs sorted for a spill file that cannot be made, want 1", n)
	}
	if !slices.Equal(got, want) {
		t.Errorf("the stream differs where spilling failed: %d entries, want %d", len(got), len(want))
	}
}
