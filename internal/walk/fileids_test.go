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

// idString is what a test compares of a reported entry.
func idString(p string, n *Node) string {
	return fmt.Sprintf("%s dir=%v %+v own %+v type %d dev %d ino %d", p, n.IsDir, n.Totals, n.Own, n.Type, n.Dev, n.Ino)
}

// TestStreamFileIDs: with FileIDs the stream hands out every entry with
// the tree walk's figures and each file's type, device and inode, whether
// the files waited in memory or in the spill file (spillAt from 1 byte to
// 1 MB), on random trees, for eight option sets and one or two operands.
func TestStreamFileIDs(t *testing.T) {
	defer func(b, s int, on bool) { subtreeBudgetMin, spillAt, subtreeWalk = b, s, on }(subtreeBudgetMin, spillAt, subtreeWalk)
	for seed := int64(1); seed <= 2; seed++ {
		path := randomTree(t, seed)
		for _, opts := range []Options{
			{MaxDepth: -1, ListFiles: true}, {MaxDepth: 0, ListFiles: true},
			{MaxDepth: 2, ListFiles: true, Jobs: 1}, {MaxDepth: 1, ListFiles: true, Jobs: 1},
			{MaxDepth: -1, ListFiles: true, Time: bulk.MTime, Jobs: 3}, {MaxDepth: -1, CountLinks: true, ListFiles: true},
			{MaxDepth: -1, ListFiles: true, Exclude: func(p string) bool { return strings.HasSuffix(p, "1") }},
			{MaxDepth: -1, ListFiles: true, SeparateDirs: true, Time: bulk.CTime},
		} {
			for _, ops := range [][]string{{path}, {filepath.Join(path, "d1"), path}} {
				for _, sa := range []int{1 << 20, 300, 1, 5000} {
					spillAt = sa
					o := opts
					o.HashAll = len(ops) > 1
					want, _ := treeLines(t, o, idString, ops...)
					var got []string
					o.Stream = func(p string, n *Node) { got = append(got, idString(p, n)) }
					o.FileIDs = true
					w := New(o)
					for _, p := range ops {
						if _, err := w.Walk(context.Background(), p); err != nil {
							t.Fatal(err)
						}
					}
					if strings.Join(got, "\n") != strings.Join(want, "\n") {
						for i := range min(len(got), len(want)) {
							if got[i] != want[i] {
								t.Fatalf("seed %d %+v spill %d: entry %d\n got %s\nwant %s", seed, opts, sa, i, got[i], want[i])
							}
						}
						t.Fatalf("seed %d %+v spill %d: %d entries, want %d", seed, opts, sa, len(got), len(want))
					}
				}
			}
		}
	}
}
