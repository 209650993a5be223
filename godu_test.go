//go:build unix

package godu_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/godu-sh/godu"
	"github.com/godu-sh/godu/internal/testtree"
)

// du runs GNU du with args and returns each printed path's figure.
func du(t *testing.T, args ...string) map[string]int64 {
	t.Helper()
	r := testtree.Run(t, "/", nil, "du", args...)
	if r.Code != 0 {
		t.Fatalf("du %v: %d %s", args, r.Code, r.Stderr)
	}
	m := map[string]int64{}
	for _, l := range strings.Split(strings.TrimSuffix(r.Stdout, "\n"), "\n") {
		n, p, _ := strings.Cut(l, "\t")
		v, err := strconv.ParseInt(n, 10, 64)
		if err != nil {
			t.Fatalf("du line %q", l)
		}
		m[p] = v
	}
	return m
}

// sums gives each reported path's three figures.
func sums(n *godu.Node) (use, app, ino map[string]int64) {
	use, app, ino = map[string]int64{}, map[string]int64{}, map[string]int64{}
	n.Walk(func(p string, n *godu.Node) {
		use[p], app[p], ino[p] = n.DiskUsage, n.ApparentSize, n.Inodes
	})
	return
}

func same(t *testing.T, what string, got, want map[string]int64) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d paths, du %d", what, len(got), len(want))
	}
	for p, w := range want {
		if g, ok := got[p]; !ok || g != w {
			t.Errorf("%s %s: %d (present %v), du %d", what, p, g, ok, w)
		}
	}
}

// Every directory (with Files, every entry) of random trees against du's
// three measures. Trees with hard links are compared in total only: which
// directory a file with several links is charged to follows du's
// traversal order, which is the file system's.
func TestScanAgreesWithDu(t *testing.T) {
	for seed := int64(1); seed <= 4; seed++ {
		root := filepath.Join(t.TempDir(), "t")
		testtree.Random(t, root, rand.New(rand.NewSource(seed)), 3, 6, 4, 0)
		for _, files := range []bool{false, true} {
			n, err := godu.Scan(context.Background(), root, godu.Options{Files: files})
			if err != nil {
				t.Fatal(err)
			}
			flags := []string{"-B1"}
			if files {
				flags = append(flags, "-a")
			}
			use, app, ino := sums(n)
			same(t, "disk usage", use, du(t, append(flags, root)...))
			wantApp := du(t, append(flags, "--apparent-size", root)...)
			if testtree.DuVersion() < 902 {
				for p, f := range testtree.ApparentFix(t, "/", []string{root}) {
					if p == "total" {
						continue
					}
					wantApp[p] -= f
				}
			}
			same(t, "apparent size", app, wantApp)
			same(t, "inodes", ino, du(t, append(flags, "--inodes", root)...))
		}
	}
}

func TestScanTotalWithLinks(t *testing.T) {
	for seed := int64(1); seed <= 4; seed++ {
		root := filepath.Join(t.TempDir(), "t")
		testtree.Random(t, root, rand.New(rand.NewSource(seed)), 3, 6, 4, 12)
		n, err := godu.Scan(context.Background(), root, godu.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if want := du(t, "-sB1", root)[root]; n.DiskUsage != want {
			t.Errorf("seed %d: %d, du %d", seed, n.DiskUsage, want)
		}
		if want := du(t, "-s", "--inodes", root)[root]; n.Inodes != want {
			t.Errorf("seed %d: %d inodes, du %d", seed, n.Inodes, want)
		}
	}
}

// linkedPair makes a/f and b/g, two links to one 64 KiB file.
func linkedPair(t *testing.T) string {
	dir := t.TempDir()
	testtree.Build(t, dir, map[string]string{"a/f": "file:65536", "b/g": "link:a/f", "b/h": "file:100"})
	return dir
}

// Each Scan starts with no memory of files: scanning twice gives du's
// figure twice.
func TestScanStartsFresh(t *testing.T) {
	dir := linkedPair(t)
	want := du(t, "-sB1", dir)[dir]
	for i := range 3 {
		n, err := godu.Scan(context.Background(), dir, godu.Options{Summarize: true})
		if err != nil || n.DiskUsage != want {
			t.Fatalf("scan %d: %+v, %v; du %d", i, n, err, want)
		}
	}
}

// A Scanner's operands share du's memory: b's link to a's file counts
// under a only, and an operand given again counts nothing.
func TestScannerSharesLinks(t *testing.T) {
	dir := linkedPair(t)
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	want := du(t, "-sB1", a, b, a)
	s := godu.NewScanner(godu.Options{Summarize: true})
	for _, op := range []string{a, b} {
		n, err := s.Scan(context.Background(), op)
		if err != nil || n.DiskUsage != want[op] {
			t.Fatalf("%s: %+v, %v; du %d", op, n, err, want[op])
		}
	}
	if n, err := s.Scan(context.Background(), a); n != nil || err != nil {
		t.Fatalf("a again: %+v, %v", n, err)
	}
}

func TestScanMissingOperand(t *testing.T) {
	p := filepath.Join(t.TempDir(), "none")
	n, err := godu.Scan(context.Background(), p, godu.Options{})
	var e *godu.Error
	if n != nil || !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &e) || e.Path != p || e.Op != "access" {
		t.Fatalf("got %+v, %v", n, err)
	}
}

// An entry that cannot be examined is an *Error that errors.Is matches,
// the rest is counted, and the nodes above it say so.
func TestScanEntryError(t *testing.T) {
	dir := t.TempDir()
	testtree.Build(t, dir, map[string]string{"ok/f": "file:5000", "bad/loop": "symlink:loop"})
	n, err := godu.Scan(context.Background(), dir, godu.Options{FollowSymlinks: true})
	if !errors.Is(err, syscall.ELOOP) {
		t.Fatalf("error %v", err)
	}
	want := testtree.Run(t, "/", nil, "du", "-LB1", dir)
	if want.Code != 1 || !strings.Contains(want.Stderr, "bad/loop") {
		t.Fatalf("du: %+v", want)
	}
	use, _, _ := sums(n)
	same(t, "disk usage", use, duLines(t, want.Stdout))
	for _, c := range n.Children {
		if c.ErrBelow != (c.Name == "bad") {
			t.Errorf("%s: ErrBelow %v", c.Name, c.ErrBelow)
		}
	}
	if !n.ErrBelow {
		t.Error("root: no ErrBelow")
	}
	var got []*godu.Error
	n, err = godu.Scan(context.Background(), dir, godu.Options{FollowSymlinks: true,
		OnError: func(e *godu.Error) { got = append(got, e) }})
	if err != nil || len(got) != 1 || got[0].Path != filepath.Join(dir, "bad", "loop") || !n.ErrBelow {
		t.Fatalf("with OnError: %v, %v", err, got)
	}
}

func duLines(t *testing.T, out string) map[string]int64 {
	m := map[string]int64{}
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		n, p, _ := strings.Cut(l, "\t")
		v, err := strconv.ParseInt(n, 10, 64)
		if err != nil {
			t.Fatalf("du line %q", l)
		}
		m[p] = v
	}
	return m
}

// Streamed nodes come children first with the final totals (a tree with
// no hard links), and Stop ends the scan with Stop.
func TestOnNode(t *testing.T) {
	root := filepath.Join(t.TempDir(), "t")
	testtree.Random(t, root, rand.New(rand.NewSource(7)), 3, 5, 4, 0)
	streamed := map[string]int64{}
	n, err := godu.Scan(context.Background(), root, godu.Options{OnNode: func(p string, n *godu.Node) error {
		if _, ok := streamed[filepath.Dir(p)]; ok {
			t.Errorf("%s after its parent", p)
		}
		streamed[p] = n.DiskUsage
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	use, _, _ := sums(n)
	same(t, "streamed", streamed, use)

	calls := 0
	_, err = godu.Scan(context.Background(), root, godu.Options{OnNode: func(string, *godu.Node) error {
		calls++
		return godu.Stop
	}})
	if err != godu.Stop || calls != 1 {
		t.Fatalf("stop: %v after %d calls", err, calls)
	}
}

// The operand's Node, the last OnNode receives, carries the operand's
// final figures, hard links included, as du -s prints them: files linked
// from two directories and from outside the tree, in every mode that
// reports more than the operand.
func TestOnNodeRootWithLinks(t *testing.T) {
	top := t.TempDir()
	root := filepath.Join(top, "t")
	testtree.Random(t, root, rand.New(rand.NewSource(11)), 3, 5, 4, 0)
	for i, d := range []string{"a", "b", "b/c"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
		f := filepath.Join(root, d, "linked")
		if i == 0 {
			os.WriteFile(f, make([]byte, 100000), 0o644)
			os.Link(f, filepath.Join(top, "outside"))
			continue
		}
		if err := os.Link(filepath.Join(root, "a", "linked"), f); err != nil {
			t.Fatal(err)
		}
	}
	want := du(t, "-sB1", root)[root]
	for _, opts := range []godu.Options{{}, {Files: true}, {MaxDepth: 1}, {Time: godu.AccessTime}} {
		var last string
		var got int64
		opts.OnNode = func(p string, n *godu.Node) error {
			last, got = p, n.DiskUsage
			return nil
		}
		n, err := godu.Scan(context.Background(), root, opts)
		if err != nil {
			t.Fatal(err)
		}
		if last != root || got != want || n.DiskUsage != want {
			t.Errorf("%+v: last OnNode %s %d, tree %d, du -s %d", opts, last, got, n.DiskUsage, want)
		}
	}
}

// OnNode receives every reported entry in du's order (the returned
// tree's Walk order: children before their directory, siblings by name),
// each with its final figures, hard links included, the same as the tree
// of a scan without OnNode; on random trees whose files have links within
// and outside the tree, for each option set and worker count.
func TestOnNodeOrderAndFigures(t *testing.T) {
	for seed := int64(1); seed <= 6; seed++ {
		top := t.TempDir()
		root := filepath.Join(top, "t")
		rng := rand.New(rand.NewSource(seed))
		testtree.Random(t, root, rng, 4, 6, 5, 0)
		var files []string
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				files = append(files, p)
			}
			return nil
		})
		for i, f := range files {
			switch i % 3 {
			case 0:
				os.Link(f, filepath.Join(top, fmt.Sprint("out", i)))
			case 1:
				os.Link(f, filepath.Join(filepath.Dir(files[rng.Intn(len(files))]), fmt.Sprint("in", i)))
			}
		}
		for _, opts := range []godu.Options{{}, {Files: true}, {MaxDepth: 2}, {Files: true, Jobs: 1}, {Jobs: 8, Time: godu.ChangeTime}} {
			plain, err := godu.Scan(context.Background(), root, opts)
			if err != nil {
				t.Fatal(err)
			}
			type call struct {
				path       string
				use, inode int64
			}
			var calls []call
			opts.OnNode = func(p string, n *godu.Node) error {
				if n.Children != nil {
					t.Errorf("%s: OnNode's Node has Children", p)
				}
				calls = append(calls, call{p, n.DiskUsage, n.Inodes})
				return nil
			}
			tree, err := godu.Scan(context.Background(), root, opts)
			if err != nil {
				t.Fatal(err)
			}
			var want, built []call
			plain.Walk(func(p string, n *godu.Node) { want = append(want, call{p, n.DiskUsage, n.Inodes}) })
			tree.Walk(func(p string, n *godu.Node) { built = append(built, call{p, n.DiskUsage, n.Inodes}) })
			if !reflect.DeepEqual(calls, want) || !reflect.DeepEqual(built, want) {
				t.Fatalf("seed %d %+v:\nOnNode %v\ntree   %v\nwant   %v", seed, opts, calls, built, want)
			}
			// NoTree: the same calls, the operand alone returned.
			calls = nil
			opts.NoTree = true
			top, err := godu.Scan(context.Background(), root, opts)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(calls, want) || top.Children != nil || top.DiskUsage != plain.DiskUsage || top.Inodes != plain.Inodes {
				t.Fatalf("seed %d %+v: NoTree: root %+v\nOnNode %v\nwant   %v", seed, opts, top, calls, want)
			}
		}
	}
}

// Stopped by OnNode, a scan returns the operand's partial tree: its
// entries received whole by then, each with its final figures, under the
// operand's sums so far.
func TestOnNodeStopPartialTree(t *testing.T) {
	root := gridTree(t, 8)
	whole, err := godu.Scan(context.Background(), root, godu.Options{})
	if err != nil {
		t.Fatal(err)
	}
	final := map[string]int64{}
	whole.Walk(func(p string, n *godu.Node) { final[p] = n.Inodes })
	for _, after := range []int{1, 3, 10} {
		calls := 0
		n, err := godu.Scan(context.Background(), root, godu.Options{Jobs: 1, OnNode: func(string, *godu.Node) error {
			if calls++; calls == after {
				return godu.Stop
			}
			return nil
		}})
		if err != godu.Stop || calls != after {
			t.Fatalf("stop after %d: %v after %d calls", after, err, calls)
		}
		if n == nil || n.Name != root || n.Inodes < 1 || n.Inodes > whole.Inodes {
			t.Fatalf("stop after %d: root %+v, whole %d inodes", after, n, whole.Inodes)
		}
		var below int64
		for _, c := range n.Children {
			below += c.Inodes
			c.Walk(func(p string, c *godu.Node) {
				if p = filepath.Join(root, p); final[p] != c.Inodes {
					t.Errorf("stop after %d: %s has %d inodes, %d in the whole tree", after, p, c.Inodes, final[p])
				}
			})
		}
		if below >= n.Inodes {
			t.Errorf("stop after %d: root %d inodes, its children %d", after, n.Inodes, below)
		}
		if after == 1 && n.Inodes == whole.Inodes {
			t.Errorf("stopped at the first entry, the scan read the whole tree (%d inodes)", n.Inodes)
		}
	}
}

// Skip leaves an entry out as du --exclude does.
func TestSkip(t *testing.T) {
	dir := t.TempDir()
	testtree.Build(t, dir, map[string]string{"keep/f": "file:9000", "drop/f": "file:90000"})
	n, err := godu.Scan(context.Background(), dir, godu.Options{Skip: func(p string) bool { return filepath.Base(p) == "drop" }})
	if err != nil {
		t.Fatal(err)
	}
	use, _, _ := sums(n)
	same(t, "disk usage", use, du(t, "-B1", "--exclude=drop", dir))
}

// Progress is read while a scan runs (the race detector watches), and at
// the end counts every entry.
func TestProgress(t *testing.T) {
	root := filepath.Join(t.TempDir(), "t")
	testtree.Random(t, root, rand.New(rand.NewSource(3)), 3, 8, 5, 0)
	s := godu.NewScanner(godu.Options{})
	var done atomic.Bool
	polled := make(chan int)
	go func() {
		k := 0
		for !done.Load() {
			p := s.Progress()
			_ = p.Current
			k++
		}
		polled <- k
	}()
	n, err := s.Scan(context.Background(), root)
	done.Store(true)
	<-polled
	if err != nil {
		t.Fatal(err)
	}
	if p := s.Progress(); p.Dirs+p.Files != n.Inodes || p.Current != "" {
		t.Fatalf("progress %+v, tree %d inodes", p, n.Inodes)
	}
}

func TestCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := godu.Scan(ctx, t.TempDir(), godu.Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
	_ = os.Getpid
}

// gridTree builds, in t's temporary directory, a tree of n directories
// of n subdirectories of four 5,000-byte files each, and returns it.
func gridTree(t *testing.T, n int) string {
	root := filepath.Join(t.TempDir(), "t")
	spec := map[string]string{}
	for i := range n {
		for j := range n {
			for k := range 4 {
				spec[fmt.Sprintf("a%d/b%d/f%d", i, j, k)] = "file:5000"
			}
		}
	}
	testtree.Build(t, root, spec)
	return root
}

// Canceled midway, a scan returns the tree of what it read, with ctx's
// error: the operand's Node, sums that grow with what was read and never
// pass the whole tree's, every Node's sums covering its children's.
func TestCanceledPartialTree(t *testing.T) {
	root := gridTree(t, 6)
	whole, err := godu.Scan(context.Background(), root, godu.Options{Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, after := range []int64{0, 5, 40} {
		ctx, cancel := context.WithCancel(context.Background())
		var seen atomic.Int64
		n, err := godu.Scan(ctx, root, godu.Options{Jobs: 1, Skip: func(string) bool {
			if seen.Add(1) > after {
				cancel()
			}
			return false
		}})
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("after %d entries (of %d asked, %d inodes): error %v, want context.Canceled", after, seen.Load(), whole.Inodes, err)
		}
		if n == nil || n.Name != root || !n.IsDir {
			t.Fatalf("after %d entries: root %+v, want the operand's partial tree", after, n)
		}
		if n.Inodes < 1 || n.Inodes >= whole.Inodes || n.DiskUsage > whole.DiskUsage {
			t.Errorf("after %d entries: %d inodes, %d bytes; whole tree %d, %d", after, n.Inodes, n.DiskUsage, whole.Inodes, whole.DiskUsage)
		}
		n.Walk(func(p string, n *godu.Node) {
			var inodes int64
			for _, c := range n.Children {
				inodes += c.Inodes
			}
			if inodes >= n.Inodes && len(n.Children) > 0 {
				t.Errorf("after %d entries: %s has %d inodes, its children %d", after, p, n.Inodes, inodes)
			}
		})
	}
}

// Canceled early in a wide directory, a scan stops reading it: it read
// every entry of the directory it was in before it looked at ctx again
// (400,000 files: a second after the cancel).
func TestCanceledWideDirectory(t *testing.T) {
	root := filepath.Join(t.TempDir(), "t")
	const files = 30000
	spec := map[string]string{}
	for i := range files {
		spec[fmt.Sprintf("f%05d", i)] = "file:0"
	}
	testtree.Build(t, root, spec)
	for _, opts := range []godu.Options{{Jobs: 1}, {}, {Files: true}} {
		ctx, cancel := context.WithCancel(context.Background())
		var seen atomic.Int64
		opts.Skip = func(string) bool {
			if seen.Add(1) == 100 {
				cancel()
			}
			return false
		}
		n, err := godu.Scan(ctx, root, opts)
		cancel()
		if !errors.Is(err, context.Canceled) || n == nil {
			t.Fatalf("%+v: %v, %v; want the partial tree and context.Canceled", opts, n, err)
		}
		// A batch or two (bulk.RecordsPerBatch each) in each worker's hands
		// may end after the cancel.
		if n.Inodes > files/4 || seen.Load() > files/4 {
			t.Errorf("%+v: canceled at the 100th entry, the scan counted %d inodes and asked about %d of %d", opts, n.Inodes, seen.Load(), files)
		}
	}
}

// Every Node carries its entry's device, inode and type, as lstat sees
// them.
func TestNodeIdentity(t *testing.T) {
	dir := t.TempDir()
	testtree.Build(t, dir, map[string]string{"d/f": "file:100", "d/l": "symlink:f", "g": "file:10"})
	if err := os.Link(filepath.Join(dir, "g"), filepath.Join(dir, "d", "g2")); err != nil {
		t.Fatal(err)
	}
	n, err := godu.Scan(context.Background(), dir, godu.Options{Files: true})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]godu.Type{dir: godu.TypeDir, dir + "/d": godu.TypeDir, dir + "/d/f": godu.TypeFile,
		dir + "/d/l": godu.TypeSymlink, dir + "/g": godu.TypeFile}
	got := 0
	n.Walk(func(p string, n *godu.Node) {
		var st syscall.Stat_t
		if err := syscall.Lstat(p, &st); err != nil {
			t.Fatal(err)
		}
		got++
		if n.Dev != uint64(st.Dev) || n.Ino != uint64(st.Ino) {
			t.Errorf("%s: dev %d ino %d, lstat %d %d", p, n.Dev, n.Ino, st.Dev, st.Ino)
		}
		if w, ok := want[p]; ok && n.Type != w {
			t.Errorf("%s: type %v, want %v", p, n.Type, w)
		}
		if n.IsDir != (n.Type == godu.TypeDir) {
			t.Errorf("%s: IsDir %v, type %v", p, n.IsDir, n.Type)
		}
	})
	if got != 5 { // the hard link g2 is counted once, under g
		t.Errorf("%d nodes, want 5", got)
	}
}

// A symlink whose target is missing, followed, is du's "cannot access"
// with no system error named: its *Error prints and matches
// fs.ErrNotExist, and an *Error with no Err prints without one.
func TestErrorDanglingSymlink(t *testing.T) {
	dir := t.TempDir()
	testtree.Build(t, dir, map[string]string{"f": "file:3000"})
	if err := os.Symlink(filepath.Join(dir, "none"), filepath.Join(dir, "x")); err != nil {
		t.Fatal(err)
	}
	want := testtree.Run(t, "/", nil, "du", "-LB1", dir)
	if want.Code != 1 || !strings.Contains(want.Stderr, "cannot access") {
		t.Fatalf("du: %+v", want)
	}
	for _, opts := range []godu.Options{{FollowSymlinks: true}, {FollowSymlinks: true, Files: true}} {
		var got []*godu.Error
		o := opts
		o.OnError = func(e *godu.Error) { got = append(got, e) }
		n, err := godu.Scan(context.Background(), dir, o)
		if err != nil || len(got) != 1 {
			t.Fatalf("%+v: %v, %v", opts, err, got)
		}
		if s := got[0].Error(); !strings.Contains(s, "cannot access "+filepath.Join(dir, "x")) {
			t.Errorf("%+v: message %q", opts, s)
		}
		if !errors.Is(got[0], fs.ErrNotExist) {
			t.Errorf("%+v: %v is not fs.ErrNotExist", opts, got[0])
		}
		use, _, _ := sums(n)
		if use[dir] != duLines(t, want.Stdout)[dir] {
			t.Errorf("%+v: total %d, du %s", opts, use[dir], want.Stdout)
		}
		_, err = godu.Scan(context.Background(), dir, opts)
		if err == nil || !strings.Contains(err.Error(), "cannot access") {
			t.Errorf("%+v: returned error %v", opts, err)
		}
	}
	e := &godu.Error{Op: "access", Path: "p"}
	if s := e.Error(); s != "godu: cannot access p" {
		t.Errorf("an Error with no Err prints %q", s)
	}
}

// An Options.Time that names no time is an error from Scan, not a panic.
func TestTimeOutOfRange(t *testing.T) {
	dir := t.TempDir()
	for _, k := range []godu.TimeKind{-1, 3, 99} {
		n, err := godu.Scan(context.Background(), dir, godu.Options{Time: k})
		if n != nil || err == nil || !strings.Contains(err.Error(), "Time") {
			t.Errorf("Time %d: %v, %v", k, n, err)
		}
		if _, err := godu.NewScanner(godu.Options{Time: k}).Scan(context.Background(), dir); err == nil {
			t.Errorf("Time %d: a Scanner scanned", k)
		}
	}
}

// An operand with trailing slashes gives the paths du prints: "d/" for
// the operand, "d/x" below it, to Skip, OnNode and Walk alike.
func TestTrailingSlashes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "d")
	testtree.Build(t, dir, map[string]string{"x/f": "file:5000", "g": "file:100"})
	for _, op := range []string{dir + "/", dir + "//", dir + "///"} {
		want := du(t, "-aB1", op)
		skipped, streamed := map[string]bool{}, map[string]int64{}
		n, err := godu.Scan(context.Background(), op, godu.Options{Files: true,
			Skip:   func(p string) bool { skipped[p] = true; return false },
			OnNode: func(p string, n *godu.Node) error { streamed[p] = n.DiskUsage; return nil }})
		if err != nil {
			t.Fatal(err)
		}
		use, _, _ := sums(n)
		same(t, op+": Walk", use, want)
		same(t, op+": OnNode", streamed, want)
		for p := range want {
			if p != dir+"/" && !skipped[p] {
				t.Errorf("%s: Skip never asked about %s (asked: %v)", op, p, skipped)
			}
		}
	}
}

// Options.Jobs past walk.MaxJobs walks with MaxJobs workers: the same
// tree, where the largest values gave an empty one, a panic or the
// runtime's out of memory (the walk's hard-link set has shards for
// four times the workers).
func TestJobsBeyondMax(t *testing.T) {
	root := filepath.Join(t.TempDir(), "t")
	spec := map[string]string{}
	for i := range 300 {
		for j := range 10 {
			spec[fmt.Sprintf("d%03d/f%d", i, j)] = "file:100"
		}
	}
	for j := range 3000 {
		spec[fmt.Sprintf("f%04d", j)] = "file:0" // a directory read in batches
	}
	testtree.Build(t, root, spec)
	want, err := godu.Scan(context.Background(), root, godu.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, jobs := range []int{4097, 1 << 27, 1<<31 - 1, 1 << 62, 1<<63 - 1} {
		n, err := godu.Scan(context.Background(), root, godu.Options{Jobs: jobs})
		if err != nil || n.Inodes != want.Inodes || n.DiskUsage != want.DiskUsage || len(n.Children) != len(want.Children) {
			t.Errorf("Jobs %d: %d inodes, %d bytes, %d children, %v; want %d, %d, %d",
				jobs, n.Inodes, n.DiskUsage, len(n.Children), err, want.Inodes, want.DiskUsage, len(want.Children))
		}
	}
}

// Stopped by OnNode at any entry, a scan returns exactly the subtrees
// complete by then: each entry received whose directories up to the
// operand were received too, and no other.
func TestStopTreeHoldsCompleteSubtrees(t *testing.T) {
	root := gridTree(t, 3)
	for _, files := range []bool{false, true} {
		for after := 1; ; after++ {
			var received []string
			n, err := godu.Scan(context.Background(), root, godu.Options{Jobs: 1, Files: files, OnNode: func(p string, _ *godu.Node) error {
				received = append(received, p)
				if len(received) == after {
					return godu.Stop
				}
				return nil
			}})
			if err == nil {
				break // the whole tree was received
			}
			got := map[string]bool{}
			n.Walk(func(p string, _ *godu.Node) { got[p] = true })
			want := map[string]bool{root: true}
			done := map[string]bool{}
			for _, p := range received {
				done[p] = true
			}
			for _, p := range received {
				if p == root {
					continue
				}
				if !strings.HasPrefix(p, root+"/") {
					t.Fatalf("received %s, not below %s", p, root)
				}
				whole := true
				for d := filepath.Dir(p); d != root; d = filepath.Dir(d) {
					whole = whole && done[d]
				}
				if whole {
					want[p] = true
				}
			}
			for p := range want {
				if !got[p] {
					t.Errorf("Files %v, stopped at %s (call %d): %s, received with its directories, is not in the tree", files, received[after-1], after, p)
				}
			}
			for p := range got {
				if !want[p] {
					t.Errorf("Files %v, stopped at %s (call %d): %s is in the tree", files, received[after-1], after, p)
				}
			}
		}
	}
}
