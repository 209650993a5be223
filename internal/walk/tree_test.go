//go:build unix

package walk

import (
	"context"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/godu-sh/godu/internal/bulk"
	"github.com/godu-sh/godu/internal/testtree"
)

// randomTree builds a tree meant to take every path of the subtree walk:
// nesting of all depths, hard links within and across subtrees, symlinks
// and fifos, a directory with more subdirectories than a walk has nodes,
// a nested directory too big for half the kernel buffer, one with more
// hard links than a batch of records, and empty directories.
func randomTree(t *testing.T, seed int64) string {
	rng := rand.New(rand.NewSource(seed))
	root := t.TempDir()
	testtree.Random(t, filepath.Join(root, "t"), rng, 6, 12, 4, 40)
	for _, d := range []string{"d0", "d1"} { // for the fixed parts below
		os.MkdirAll(filepath.Join(root, "t", d), 0o755)
	}
	many := filepath.Join(root, "t", "d0", "many")
	for i := 0; i < bulk.TreeNodes+40; i++ {
		os.MkdirAll(filepath.Join(many, fmt.Sprintf("s%04d", i)), 0o755)
	}
	os.WriteFile(filepath.Join(many, "s0001", "x"), make([]byte, 5000), 0o644)
	big := filepath.Join(root, "t", "d0", "big", "inner")
	os.MkdirAll(big, 0o755)
	for i := 0; i < 700; i++ {
		os.WriteFile(filepath.Join(big, fmt.Sprintf("a-rather-long-file-name-%05d", i)), make([]byte, i), 0o644)
	}
	linked := filepath.Join(root, "t", "d1", "links", "in")
	os.MkdirAll(linked, 0o755)
	os.WriteFile(filepath.Join(linked, "orig"), make([]byte, 70000), 0o644)
	for i := 0; i < bulk.RecordsPerBatch+10; i++ {
		os.Link(filepath.Join(linked, "orig"), filepath.Join(linked, fmt.Sprintf("l%d", i)))
	}
	os.MkdirAll(filepath.Join(root, "t", "empty", "e", "e"), 0o755)
	// A chain whose every level holds a few subdirectories among many
	// files (passMixed), some of them hard links to the level above.
	level := filepath.Join(root, "t", "d1", "chain")
	for i := 0; i < 12; i++ {
		os.MkdirAll(filepath.Join(level, "empty"), 0o755)
		for j := 0; j < bulk.MixedFiles+rng.Intn(20); j++ {
			os.WriteFile(filepath.Join(level, fmt.Sprintf("f%02d", j)), make([]byte, rng.Intn(9000)), 0o644)
		}
		if i > 0 && i%3 == 0 {
			os.Link(filepath.Join(filepath.Dir(level), "f00"), filepath.Join(level, "up"))
		}
		level = filepath.Join(level, fmt.Sprint("c", i))
	}
	return filepath.Join(root, "t")
}

// openFds counts this process's open descriptors.
func openFds(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// report is a walk's result in comparable form: every reported node's
// path and totals, and the walker's counts. It fails t if the walk leaves
// a descriptor open.
// sameReport requires what a walk reported (got, stats) to be want and
// wantStats; what names the walk.
func sameReport(t *testing.T, what string, got, want map[string]Totals, stats, wantStats Stats) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		for p := range want {
			if got[p] != want[p] {
				t.Errorf("%s: %s: %+v, want %+v", what, p, got[p], want[p])
			}
		}
		t.Fatalf("%s: %d nodes, want %d", what, len(got), len(want))
	}
	if stats != wantStats {
		t.Errorf("%s: stats %+v, want %+v", what, stats, wantStats)
	}
}

func report(t *testing.T, opts Options, path string) (map[string]Totals, Stats) {
	fds := openFds(t)
	defer func() {
		if now := openFds(t); now != fds {
			t.Errorf("%+v: %d descriptors open after the walk, %d before", opts, now, fds)
		}
	}()
	emitted := map[string]int{} // OnNode's order
	opts.OnNode = func(p string, n *Node) {
		if _, twice := emitted[p]; twice {
			t.Errorf("OnNode: %s twice", p)
		}
		emitted[p] = len(emitted)
	}
	w := New(opts)
	n, err := w.Walk(context.Background(), path)
	if err != nil || n == nil {
		t.Fatalf("walk: %v", err)
	}
	got := map[string]Totals{}
	n.Walk(func(p string, n *Node) {
		at, ok := emitted[p]
		if !ok {
			t.Errorf("OnNode: %s never", p)
		}
		for _, c := range n.Children {
			if emitted[Join(p, c.Name)] > at {
				t.Errorf("OnNode: %s before its child %s", p, c.Name)
			}
		}
		got[p] = n.Totals
		got[p+" (own)"] = n.Own
		if !sort.SliceIsSorted(n.Children, func(i, j int) bool { return n.Children[i].Name < n.Children[j].Name }) {
			t.Errorf("%s: children out of order", p)
		}
	})
	return got, w.Stats()
}

// baseline is what a walk reports, for walks with a switch turned on to
// be compared with (same): its stream, and without ListFiles its nodes'
// totals and its counts.
type baseline struct {
	stream []string
	want   map[string]Totals
	stats  Stats
}

func walkBaseline(t *testing.T, opts Options, path string) baseline {
	b := baseline{stream: treeEntries(t, opts, path)}
	if !opts.ListFiles { // (report's OnNode check counts directories only)
		b.want, b.stats = report(t, opts, path)
	}
	return b
}

// same requires a walk of path with opts, named name, to report what b
// holds, as a tree and as a stream.
func (b baseline) same(t *testing.T, name string, opts Options, path string) {
	t.Helper()
	if b.want != nil {
		got, stats := report(t, opts, path)
		sameReport(t, name, got, b.want, stats, b.stats)
	}
	if got := streamEntries(t, opts, path); strings.Join(got, "\n") != strings.Join(b.stream, "\n") {
		t.Errorf("%s: the stream differs from the baseline walk's", name)
	}
}

// TestSubtreeWalk compares walks that read subtrees in the core with walks
// that read every directory one by one: same totals at every reported
// node, same counts, for every budget down to one entry (most directories
// then stand in for read ones above left ones, reopened on demand), and
// with walks that end for any free worker (bulk.Live).
func TestSubtreeWalk(t *testing.T) {
	if !bulk.CanTree {
		t.Skip("no subtree walk in this build")
	}
	defer func(b int, on bool) { subtreeBudgetMin, subtreeWalk = b, on }(subtreeBudgetMin, subtreeWalk)
	yieldMin := bulk.YieldMin
	defer func() { bulk.YieldMin = yieldMin }()
	for seed := int64(1); seed <= 4; seed++ {
		path := randomTree(t, seed)
		for _, opts := range []Options{
			{MaxDepth: 0}, {MaxDepth: 1}, {MaxDepth: 2, Time: bulk.MTime}, {MaxDepth: 0, CountLinks: true},
			{MaxDepth: 1, OneFileSystem: true, Jobs: 1}, {MaxDepth: 3, Jobs: 16}, {MaxDepth: -1},
			{MaxDepth: -1, Time: bulk.CTime, Jobs: 2}, {MaxDepth: -1, CountLinks: true},
		} {
			subtreeWalk = false
			want, wantStats := report(t, opts, path)
			subtreeWalk = true
			for _, budget := range []int{1, 3, 50, 256, 1 << 20} {
				subtreeBudgetMin = budget
				got, stats := report(t, opts, path)
				sameReport(t, fmt.Sprintf("seed %d %+v budget %d", seed, opts, budget), got, want, stats, wantStats)
			}
			// Every walk ends for a free worker at its first chance.
			bulk.YieldMin = 1
			got, stats := report(t, opts, path)
			bulk.YieldMin = yieldMin
			sameReport(t, fmt.Sprintf("seed %d %+v budget %d, yielding", seed, opts, subtreeBudgetMin), got, want, stats, wantStats)
		}
	}
}

// TestSubtreeWalkErrors: directories that cannot be read or whose entries
// cannot be examined, at every depth below the walk's root, are left to
// the one-by-one walk, which reports them as du does; the totals are the
// one-by-one walk's.
func TestSubtreeWalkErrors(t *testing.T) {
	if !bulk.CanTree {
		t.Skip("no subtree walk in this build")
	}
	if os.Getuid() == 0 {
		// Root reads every directory: run this test again as nobody.
		asNobody(t, "TestSubtreeWalkErrors")
		return
	}
	defer func(b int, on bool) { subtreeBudgetMin, subtreeWalk = b, on }(subtreeBudgetMin, subtreeWalk)
	path := randomTree(t, 9)
	for _, p := range []string{"d0/locked", "d0/d1/locked", "d1/d0/d0/locked"} {
		os.MkdirAll(filepath.Join(path, p, "x"), 0o755)
		os.Chmod(filepath.Join(path, p), 0o300)
		defer os.Chmod(filepath.Join(path, p), 0o755)
	}
	for _, p := range []string{"d0/noexec", "d1/d0/noexec"} {
		os.MkdirAll(filepath.Join(path, p), 0o755)
		os.WriteFile(filepath.Join(path, p, "f"), make([]byte, 9000), 0o644)
		os.Chmod(filepath.Join(path, p), 0o644)
		defer os.Chmod(filepath.Join(path, p), 0o755)
	}
	errs := func(on bool, budget int) ([]string, map[string]Totals) {
		subtreeWalk, subtreeBudgetMin = on, budget
		var msgs []string
		got, _ := report(t, Options{MaxDepth: -1, OnError: func(e *Error) { msgs = append(msgs, e.Error()) }}, path)
		return msgs, got
	}
	wantErrs, want := errs(false, 0)
	if len(wantErrs) != 5 {
		t.Fatalf("one-by-one walk met %d errors, want 5: %q", len(wantErrs), wantErrs)
	}
	for _, budget := range []int{1, 7, 1 << 20} {
		gotErrs, got := errs(true, budget)
		if strings.Join(sorted(gotErrs), "\n") != strings.Join(sorted(wantErrs), "\n") || !reflect.DeepEqual(got, want) {
			t.Errorf("budget %d: errors %q, want %q; totals equal: %v", budget, gotErrs, wantErrs, reflect.DeepEqual(got, want))
		}
	}
}

func sorted(s []string) []string {
	s = append([]string(nil), s...)
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s
}

// asNobody runs the named test of this test binary as user nobody, from a
// copy of the binary that nobody may execute.
func asNobody(t *testing.T, name string) {
	dir := t.TempDir()
	os.Chmod(dir, 0o777) // the child's TMPDIR
	os.Chmod(filepath.Dir(dir), 0o755)
	self, err := os.Open(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	defer self.Close()
	exe := filepath.Join(dir, "walk.test")
	f, err := os.OpenFile(exe, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(f, self); err != nil {
		t.Fatal(err)
	}
	f.Close()
	cmd := exec.Command(exe, "-test.run=^"+name+"$", "-test.count=1", "-test.v")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TMPDIR="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+name) {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
}

// TestOperandSplit compares walks whose operand's first batch is examined
// by two workers (statListed) with walks that examine it on one: same
// totals at every reported node, same counts, at every split size, for an
// operand with subdirectories, links and odd entries and for a flat one.
func TestOperandSplit(t *testing.T) {
	defer func(n int) { splitMin = n }(splitMin)
	path := randomTree(t, 5)
	for _, op := range []string{path, filepath.Join(path, "d0", "big", "inner"), filepath.Join(path, "d1", "links", "in")} {
		for _, opts := range []Options{
			{MaxDepth: 0}, {MaxDepth: -1}, {MaxDepth: 0, CountLinks: true, Jobs: 2},
			{MaxDepth: 1, Time: bulk.MTime, Jobs: 16}, {MaxDepth: -1, Jobs: 1},
		} {
			splitMin = 1 << 30
			want, wantStats := report(t, opts, op)
			for _, n := range []int{1, 2, 256} {
				splitMin = n
				got, stats := report(t, opts, op)
				sameReport(t, fmt.Sprintf("%s %+v split at %d", op, opts, n), got, want, stats, wantStats)
			}
		}
	}
}

// TestPassMixed compares walks in which a directory of a few
// subdirectories among many files passes them on before it examines its
// files, while a worker is idle (passMixed, and subtree walks that hand
// such a directory over), with walks in which none does: same totals at
// every reported node, same counts, same stream; and such directories
// were passed on. Whether a worker is idle when a directory is visited
// depends on the scheduler; below the chain of such directories alone, at
// 16 workers, one always is (a walk of the whole tree may find none idle
// there).
//
// Whether a worker is idle as a directory is visited depends on timing
// (on tmpfs, where reading is fast, the walks of this tree met none): each
// walk runs as it comes and again as if a worker were always idle
// (mixedAlways), where every such directory passes its subdirectories on.
func TestPassMixed(t *testing.T) {
	defer func(on bool) { mixedPass, mixedAlways = on, false }(mixedPass)
	root := randomTree(t, 9)
	for _, path := range []string{root, filepath.Join(root, "d1", "chain")} {
		for _, opts := range []Options{
			{MaxDepth: 0}, {MaxDepth: -1}, {MaxDepth: -1, Jobs: 16}, {MaxDepth: 2, Jobs: 3, Time: bulk.MTime},
			{MaxDepth: -1, ListFiles: true, Jobs: 4}, {MaxDepth: -1, CountLinks: true, Jobs: 2},
		} {
			mixedPass, mixedAlways = false, false
			base := walkBaseline(t, opts, path)
			for _, always := range []bool{false, true} {
				mixedPass, mixedAlways = true, always
				passes := mixedPasses.Load()
				name := fmt.Sprintf("%s %+v always idle %v", path, opts, always)
				base.same(t, name, opts, path)
				// The portable reader lists names without their types
				// (every entry may be a directory): there only a batch of
				// a directory listed in several passes its subdirectories
				// on first.
				if always && bulk.CanSplit && bulk.Variant != "portable" && mixedPasses.Load() == passes {
					t.Errorf("%s: no directory passed its subdirectories on before its files", name)
				}
			}
		}
	}
}

// TestChainPassedOn: down a chain of directories, each holding files and
// the next, a worker that reads one passes the next on before it
// examines the files, so that two workers take the levels in turn, as
// long as nothing else waits on the stack: also when every slot of the
// walk is taken (Jobs 2, the walk's caller one of them) and when the
// caller's goroutine has left its slot to the others.
func TestChainPassedOn(t *testing.T) {
	if !bulk.CanSplit || bulk.Variant == "portable" {
		t.Skip("the reader lists no types: a directory is examined as it is listed")
	}
	const levels, files = 120, 2 * bulk.MixedFiles
	dir := t.TempDir()
	root := filepath.Join(dir, testtree.Generate(t, dir, testtree.Shape{Kind: "chain", Size: levels, Files: files}))
	for _, jobs := range []int{2, 3, 6} {
		before := mixedPasses.Load()
		opts := Options{Jobs: jobs}
		_, stats := report(t, opts, root)
		if want := int64(levels*(files+1)) + 1; stats.Dirs+stats.Files != want {
			t.Fatalf("jobs %d: %d entries counted, want %d", jobs, stats.Dirs+stats.Files, want)
		}
		// The first level is the operand's, read otherwise; a level a
		// subtree walk reads whole, before any worker is free, is read
		// without passing on.
		if n := mixedPasses.Load() - before; n < levels*3/4 {
			t.Errorf("jobs %d: %d of %d levels passed their subdirectory on before their files", jobs, n, levels)
		}
	}
}
