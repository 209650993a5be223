//go:build unix

package walk

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/godu-sh/godu/internal/bulk"
)

// treeEntries is a walk's printed entries in order (path, totals, own
// totals), from the tree Walk returns, then the walker's counts.
func treeEntries(t *testing.T, opts Options, paths ...string) []string {
	w := New(opts)
	var out []string
	for _, p := range paths {
		n, err := w.Walk(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		if n != nil {
			n.Walk(func(p string, n *Node) { out = append(out, entryString(p, n)) })
		}
	}
	return append(out, fmt.Sprintf("stats %+v", w.Stats()))
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
				for i, budget := range []int{0, 1, 50, 1 << 20} {
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
