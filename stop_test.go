//go:build unix

package godu_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/godu-sh/godu"
)

// linkedTree makes 120 directories three levels deep under root, each
// with four files of various sizes, one file in five with a second link
// in another directory.
func linkedTree(t *testing.T, root string) {
	n := 0
	var prev string
	for i := range 6 {
		for j := range 5 {
			for k := range 4 {
				d := filepath.Join(root, fmt.Sprintf("a%d/b%d/c%d", i, j, k))
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
				for f := range 4 {
					p := filepath.Join(d, fmt.Sprintf("f%d", f))
					if err := os.WriteFile(p, make([]byte, 1000*(n%7)), 0o644); err != nil {
						t.Fatal(err)
					}
					if n%5 == 0 && prev != "" {
						if err := os.Link(prev, filepath.Join(d, fmt.Sprintf("l%d", f))); err != nil {
							t.Fatal(err)
						}
					}
					if n%5 == 1 {
						prev = p
					}
					n++
				}
			}
		}
	}
}

// Ended at every point (OnNode returning Stop or another error, or
// cancelling ctx), a scan makes no OnNode call after, and returns the
// operand's partial tree: below it, entries that OnNode received, each
// with its final figures and children; the operand's sums, hard links
// included, at least its children's and at most the whole tree's.
func TestEndedAtEveryEntry(t *testing.T) {
	root := filepath.Join(t.TempDir(), "t")
	linkedTree(t, root)
	for _, opts := range []godu.Options{{}, {Files: true}, {Files: true, Jobs: 1}, {MaxDepth: 1}, {Jobs: 16, Files: true}} {
		whole, err := godu.Scan(context.Background(), root, opts)
		if err != nil {
			t.Fatal(err)
		}
		type fig struct {
			use, inodes int64
			kids        int
		}
		final := map[string]fig{}
		whole.Walk(func(p string, n *godu.Node) { final[p] = fig{n.DiskUsage, n.Inodes, len(n.Children)} })
		for after := 1; after <= len(final); after += 1 + after/3 {
			for _, how := range []string{"stop", "err", "ctx"} {
				ctx, cancel := context.WithCancel(context.Background())
				mine := fmt.Errorf("mine")
				calls := 0
				received := map[string]bool{}
				o := opts
				o.OnNode = func(p string, _ *godu.Node) error {
					calls++
					received[p] = true
					if calls == after {
						switch how {
						case "stop":
							return godu.Stop
						case "err":
							return mine
						default:
							cancel()
						}
					}
					return nil
				}
				n, err := godu.Scan(ctx, root, o)
				cancel()
				what := fmt.Sprintf("%+v, %s after %d", opts, how, after)
				want := map[string]error{"stop": godu.Stop, "err": mine, "ctx": context.Canceled}[how]
				if err != want && !(how == "ctx" && after == len(final) && err == nil) {
					t.Fatalf("%s: error %v", what, err)
				}
				if calls != after {
					t.Fatalf("%s: %d OnNode calls", what, calls)
				}
				if n == nil || n.Name != root {
					t.Fatalf("%s: root %+v", what, n)
				}
				var use, inodes int64
				for _, c := range n.Children {
					use, inodes = use+c.DiskUsage, inodes+c.Inodes
					c.Walk(func(p string, c *godu.Node) {
						p = filepath.Join(root, p)
						if f := final[p]; !received[p] || f != (fig{c.DiskUsage, c.Inodes, len(c.Children)}) {
							t.Errorf("%s: %s: %d bytes %d inodes %d children (received %v), whole tree %+v",
								what, p, c.DiskUsage, c.Inodes, len(c.Children), received[p], f)
						}
					})
				}
				if n.DiskUsage < use || n.Inodes < inodes || n.DiskUsage > whole.DiskUsage || n.Inodes > whole.Inodes {
					t.Errorf("%s: root %d bytes %d inodes, its children %d %d, whole %d %d",
						what, n.DiskUsage, n.Inodes, use, inodes, whole.DiskUsage, whole.Inodes)
				}
			}
		}
	}
}

// Every file's Node, given to OnNode and in the tree, carries its type,
// device and inode number, as lstat sees them.
func TestFileIdentity(t *testing.T) {
	root := filepath.Join(t.TempDir(), "t")
	linkedTree(t, root)
	os.Symlink("f0", filepath.Join(root, "a0", "s"))
	if err := unix.Mkfifo(filepath.Join(root, "a0", "p"), 0o644); err != nil {
		t.Fatal(err)
	}
	check := func(what, p string, n *godu.Node) {
		var st syscall.Stat_t
		if err := syscall.Lstat(p, &st); err != nil {
			t.Fatal(err)
		}
		want := godu.TypeOther
		switch st.Mode & syscall.S_IFMT {
		case syscall.S_IFREG:
			want = godu.TypeFile
		case syscall.S_IFDIR:
			want = godu.TypeDir
		case syscall.S_IFLNK:
			want = godu.TypeSymlink
		}
		if n.Type != want || n.Dev != uint64(st.Dev) || n.Ino != st.Ino {
			t.Errorf("%s %s: type %v dev %d ino %d; lstat %v %d %d", what, p, n.Type, n.Dev, n.Ino, want, st.Dev, st.Ino)
		}
	}
	calls := 0
	tree, err := godu.Scan(context.Background(), root, godu.Options{Files: true, OnNode: func(p string, n *godu.Node) error {
		calls++
		check("OnNode", p, n)
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	tree.Walk(func(p string, n *godu.Node) { check("tree", p, n) })
	if calls < 600 {
		t.Fatalf("%d entries", calls)
	}
}

// Following symlinks, a directory reached by two paths is reported at
// the same one by every scan: with or without OnNode, one worker or many.
func TestFollowOnePath(t *testing.T) {
	top := t.TempDir()
	os.MkdirAll(filepath.Join(top, "t", "d"), 0o755)
	os.WriteFile(filepath.Join(top, "t", "d", "f"), make([]byte, 5000), 0o644)
	os.Symlink("t", filepath.Join(top, "sl"))
	os.Symlink("t/d", filepath.Join(top, "a"))
	var first string
	for i, opts := range []godu.Options{{FollowSymlinks: true}, {FollowSymlinks: true, Jobs: 1}, {FollowSymlinks: true, Jobs: 16},
		{FollowSymlinks: true, OnNode: func(string, *godu.Node) error { return nil }}} {
		for range 5 {
			n, err := godu.Scan(context.Background(), top, opts)
			if err != nil {
				t.Fatal(err)
			}
			var ps []string
			n.Walk(func(p string, n *godu.Node) { ps = append(ps, fmt.Sprint(strings.TrimPrefix(p, top), n.DiskUsage)) })
			if got := strings.Join(ps, " "); i == 0 && first == "" {
				first = got
			} else if got != first {
				t.Fatalf("options %d: %s\nfirst: %s", i, got, first)
			}
		}
	}
}

// A Scanner's Progress counts all its scans, an entry once: two trees,
// then one of them again.
func TestScannerProgressAddsUp(t *testing.T) {
	top := t.TempDir()
	a, b := filepath.Join(top, "a"), filepath.Join(top, "b")
	linkedTree(t, a)
	os.MkdirAll(filepath.Join(b, "x", "y"), 0o755)
	s := godu.NewScanner(godu.Options{})
	var total int64
	for _, op := range []string{a, b, a} {
		n, err := s.Scan(context.Background(), op)
		if err != nil {
			t.Fatal(err)
		}
		if n != nil {
			total += n.Inodes
		}
		if p := s.Progress(); p.Dirs+p.Files != total {
			t.Fatalf("after %s: progress %d entries, the scans' %d", op, p.Dirs+p.Files, total)
		}
	}
}
