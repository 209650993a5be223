//go:build unix

package walk

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/godu-sh/godu/internal/testtree"
)

// duBlocks is GNU du's figure for path in 512-byte blocks.
func duBlocks(t *testing.T, path string, args ...string) int64 {
	r := testtree.Run(t, "/", nil, "du", append([]string{"-s", "-B512"}, append(args, path)...)...)
	if r.Code != 0 {
		t.Fatalf("du %s: %s", path, r.Stderr)
	}
	n, err := strconv.ParseInt(strings.Fields(r.Stdout)[0], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// linkedTree makes a tree of dirs directories, each holding files files and
// some hard links across directories.
func linkedTree(t *testing.T, dirs, files int) string { return makeTree(t, dirs, files, true) }

func makeTree(t *testing.T, dirs, files int, links bool) string {
	root := t.TempDir()
	for d := 0; d < dirs; d++ {
		dir := filepath.Join(root, fmt.Sprintf("d%d", d%7), fmt.Sprintf("e%d", d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for f := 0; f < files; f++ {
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d", f)), make([]byte, (f*131+d)%20000), 0o644)
		}
		if d > 0 && links {
			os.Link(filepath.Join(root, "d0", "e0", "f1"), filepath.Join(dir, "link"))
		}
	}
	return root
}

func TestTotalsMatchDu(t *testing.T) {
	root := linkedTree(t, 60, 40)
	for _, jobs := range []int{1, 2, 3, 16} {
		for _, list := range []bool{false, true} {
			w := New(Options{Jobs: jobs, MaxDepth: 0, ListFiles: list})
			n, err := w.Walk(context.Background(), root)
			if err != nil {
				t.Fatal(err)
			}
			if want := duBlocks(t, root); n.Blocks != want {
				t.Errorf("jobs=%d list=%v: %d blocks, du says %d", jobs, list, n.Blocks, want)
			}
			if want := duBlocks(t, root, "--inodes"); n.Inodes != want {
				t.Errorf("jobs=%d: %d inodes, du says %d", jobs, n.Inodes, want)
			}
		}
	}
}

func TestCountLinks(t *testing.T) {
	root := linkedTree(t, 10, 5)
	n, _ := New(Options{CountLinks: true}).Walk(context.Background(), root)
	if want := duBlocks(t, root, "-l"); n.Blocks != want {
		t.Errorf("%d blocks, du -l says %d", n.Blocks, want)
	}
}

func TestReportedNodes(t *testing.T) {
	root := makeTree(t, 14, 3, false) // OnNode's totals leave hard links out
	// Hard-linked files are charged after the walk: see TestLinksDeterministic.
	w := New(Options{MaxDepth: 1})
	var mu sync.Mutex
	seen := map[string]Totals{}
	w.opts.OnNode = func(p string, n *Node) {
		mu.Lock()
		seen[p] = n.Totals
		mu.Unlock()
	}
	n, err := w.Walk(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	if len(n.Children) != 7 {
		t.Fatalf("%d children reported, want 7", len(n.Children))
	}
	var sum int64
	for i, c := range n.Children {
		if i > 0 && n.Children[i-1].Name >= c.Name {
			t.Errorf("children not sorted: %q before %q", n.Children[i-1].Name, c.Name)
		}
		if len(c.Children) != 0 {
			t.Errorf("%s: children below MaxDepth reported", c.Name)
		}
		if seen[Join(root, c.Name)] != c.Totals {
			t.Errorf("OnNode saw %+v for %s, tree has %+v", seen[Join(root, c.Name)], c.Name, c.Totals)
		}
		sum += c.Blocks
	}
	if sum+n.Own.Blocks != n.Blocks { // (a tmpfs directory holds no blocks)
		t.Errorf("children's %d blocks and the root's own %d do not make its %d", sum, n.Own.Blocks, n.Blocks)
	}
	var order []string
	n.Walk(func(p string, _ *Node) { order = append(order, p) })
	if order[len(order)-1] != root || len(order) != 8 {
		t.Errorf("post-order walk gave %q", order)
	}
}

func TestCancel(t *testing.T) {
	root := linkedTree(t, 50, 10)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	n, err := New(Options{}).Walk(ctx, root)
	// Nothing was read: the operand's Node counts itself alone.
	if err != context.Canceled || n == nil || n.Inodes != 1 || len(n.Children) != 0 {
		t.Fatalf("canceled walk returned %v, %v", n, err)
	}
	// With Stream, the operand's Node alone, counting itself alone, and
	// nothing streamed.
	streamed := 0
	n, err = New(Options{Stream: func(string, *Node) { streamed++ }}).Walk(ctx, root)
	if err != context.Canceled || n == nil || n.Inodes != 1 || len(n.Children) != 0 || streamed != 0 {
		t.Fatalf("canceled streaming walk returned %v, %v, %d streamed", n, err, streamed)
	}
}

func TestOperandErrors(t *testing.T) {
	var errs []*Error
	w := New(Options{OnError: func(e *Error) { errs = append(errs, e) }})
	n, err := w.Walk(context.Background(), filepath.Join(t.TempDir(), "missing"))
	if n != nil || err != nil || len(errs) != 1 || errs[0].Op != "access" || w.Stats().Errors != 1 {
		t.Fatalf("missing operand: %v %v %v", n, err, errs)
	}
}

func BenchmarkWalk(b *testing.B) {
	root := b.TempDir()
	for d := 0; d < 200; d++ {
		dir := filepath.Join(root, fmt.Sprintf("d%d", d%10), fmt.Sprintf("e%d", d))
		os.MkdirAll(dir, 0o755)
		for f := 0; f < 100; f++ {
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d", f)), nil, 0o644)
		}
	}
	for _, jobs := range []int{1, 2, 4, 6, 8} {
		b.Run(fmt.Sprintf("jobs=%d", jobs), func(b *testing.B) {
			b.ReportAllocs()
			w := New(Options{Jobs: jobs, MaxDepth: 0})
			for i := 0; i < b.N; i++ {
				if _, err := w.Walk(context.Background(), root); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestLinksDeterministic: however the workers meet the links of a file,
// the file is charged to the first link in traversal order (entries sorted
// by name), every run alike.
func TestLinksDeterministic(t *testing.T) {
	root := t.TempDir()
	for d := 0; d < 30; d++ {
		dir := filepath.Join(root, fmt.Sprintf("d%02d", d))
		os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
		os.WriteFile(filepath.Join(dir, "own"), make([]byte, 5000), 0o644)
	}
	orig := filepath.Join(root, "d29", "sub", "orig")
	os.WriteFile(orig, make([]byte, 40000), 0o644)
	for d := 28; d >= 3; d-- {
		os.Link(orig, filepath.Join(root, fmt.Sprintf("d%02d", d), "sub", "link"))
	}
	os.Link(orig, filepath.Join(root, "d03", "a-link")) // d03/a-link comes before d03/sub/link
	var first string
	for run := 0; run < 20; run++ {
		w := New(Options{Jobs: 8, MaxDepth: -1, ListFiles: true})
		n, err := w.Walk(context.Background(), root)
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		var linkLines []string
		n.Walk(func(p string, n *Node) {
			lines = append(lines, fmt.Sprintf("%d %s", n.Blocks, p))
			if strings.Contains(p, "link") || strings.HasSuffix(p, "orig") {
				linkLines = append(linkLines, p)
			}
		})
		out := strings.Join(lines, "\n")
		if run == 0 {
			first = out
			if len(linkLines) != 1 || linkLines[0] != Join(root, "d03/a-link") {
				t.Fatalf("links listed: %q, want only d03/a-link", linkLines)
			}
		} else if out != first {
			t.Fatalf("run %d differs from run 0:\n%s\n---\n%s", run, out, first)
		}
	}
}
