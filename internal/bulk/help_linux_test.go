//go:build !godu_xnu && !godu_portable

package bulk

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/godu-sh/godu/internal/testtree"
)

// dirTruth is what a read node must hold, from os.ReadDir and lstat: the
// directory's own entry, its other entries' sums (hard-linked files
// apart), and its hard-linked files' names.
type dirTruth struct {
	ino, dev      uint64
	files         uint64
	blocks, size  int64
	links, subdir []string
}

func readTruth(t *testing.T, path string, allLinks bool) dirTruth {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		t.Fatal(err)
	}
	d := dirTruth{ino: st.Ino, dev: uint64(st.Dev)}
	ents, err := os.ReadDir(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		var s unix.Stat_t
		if err := unix.Lstat(filepath.Join(path, e.Name()), &s); err != nil {
			t.Fatal(err)
		}
		switch {
		case s.Mode&unix.S_IFMT == unix.S_IFDIR:
			d.subdir = append(d.subdir, e.Name())
		case s.Nlink > 1 && !allLinks:
			d.links = append(d.links, e.Name())
		default:
			d.files++
			d.blocks += s.Blocks
			if m := s.Mode & unix.S_IFMT; m == unix.S_IFREG || m == unix.S_IFLNK {
				d.size += s.Size
			}
		}
	}
	sort.Strings(d.links)
	sort.Strings(d.subdir)
	return d
}

// checkWalk checks a subtree walk's result against the directories
// themselves: every node is a subdirectory of its parent (the root's
// first ones of root) and each subdirectory of a read node is a node
// once; a read node holds its directory's sums and its hard links (and no
// other node holds them); the walk's sums are its read nodes'. It returns
// how many nodes were read.
func checkWalk(t *testing.T, root string, tr *Tree, mode Mode) int {
	t.Helper()
	paths := make([]string, len(tr.Nodes))
	kids := make([][]string, len(tr.Nodes))
	links := make([][]string, len(tr.Nodes))
	for k, rec := range tr.Links.Records {
		i := tr.LinkNodes[k]
		links[i] = append(links[i], string(tr.Links.Name(&rec)))
	}
	var dirs, files uint64
	var blocks, size int64
	read := 0
	for i := range tr.Nodes {
		nd := &tr.Nodes[i]
		name := string(tr.NodeName(nd))
		if nd.Parent >= 0 {
			if int(nd.Parent) >= i {
				t.Fatalf("node %d (%s) comes before its parent %d", i, name, nd.Parent)
			}
			paths[i] = filepath.Join(paths[nd.Parent], name)
			kids[nd.Parent] = append(kids[nd.Parent], name)
		} else {
			paths[i] = name
		}
		if nd.Done == 0 {
			if len(links[i]) > 0 {
				t.Fatalf("%s: unread, with %d hard links", paths[i], len(links[i]))
			}
			continue
		}
		read++
		want := readTruth(t, filepath.Join(root, paths[i]), mode&TreeAllLinks != 0)
		if nd.Ino != want.ino || nd.Dev != want.dev {
			t.Fatalf("%s: node of another directory", paths[i])
		}
		if nd.Files != want.files || nd.FBlocks != want.blocks || nd.FSize != want.size {
			t.Fatalf("%s: files %d blocks %d size %d, want %d %d %d", paths[i], nd.Files, nd.FBlocks, nd.FSize, want.files, want.blocks, want.size)
		}
		sort.Strings(links[i])
		if fmt.Sprint(links[i]) != fmt.Sprint(want.links) {
			t.Fatalf("%s: hard links %q, want %q", paths[i], links[i], want.links)
		}
		dirs++
		files += nd.Files
		blocks += nd.Blocks + nd.FBlocks
		size += nd.FSize
		defer func(i int, want []string) { // once every node is seen
			sort.Strings(kids[i])
			if fmt.Sprint(kids[i]) != fmt.Sprint(want) {
				t.Errorf("%s: subdirectories %q, want %q", paths[i], kids[i], want)
			}
		}(i, want.subdir)
	}
	if tr.Dirs != dirs || tr.Files != files || tr.Sum.Blocks != blocks || tr.Sum.Size != size {
		t.Fatalf("sums: %d dirs %d files %d blocks %d bytes, nodes %d %d %d %d", tr.Dirs, tr.Files, tr.Sum.Blocks, tr.Sum.Size, dirs, files, blocks, size)
	}
	return read
}

// helpersFixture is treeFixture with room for helpers: 100-200
// directories.
func helpersFixture(t *testing.T, seed int64, big bool) string {
	root := treeFixture(t, seed, big)
	rng := rand.New(rand.NewSource(seed))
	for i := 3; i < 6; i++ {
		testtree.Random(t, filepath.Join(root, fmt.Sprintf("top%d", i)), rng, 5, 6, 5, 30)
	}
	return root
}

// startHelpers starts n helpers that join any walk open in live until
// stop is called; stop returns how many directories they read.
func startHelpers(live *Live, n int) (stop func() int64) {
	var helped atomic.Int64
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := NewReader()
			for {
				select {
				case <-done:
					return
				default:
				}
				helped.Add(int64(r.Help(live)))
			}
		}()
	}
	return func() int64 {
		close(done)
		wg.Wait()
		return helped.Load()
	}
}

// TestTreeHelpers: free workers that join a subtree walk (Reader.Help)
// read its directories with it. Whatever each reads, a read node holds
// its directory's sums and hard links, every subdirectory of a read node
// is a node once, several directories may be handed over open (one per
// reader at most), and the walk returns only once its helpers left it.
// Helpers do read directories: the walk waits for them while it has
// nothing to take. At times they are slowed down, so that the walk ends
// while they read.
func TestTreeHelpers(t *testing.T) {
	if !CanHelp {
		t.Skip("this build's subtree walk takes no helpers")
	}
	var helped int64
	defer setHelpTest(0, false)
	for seed := int64(1); seed <= 2; seed++ {
		// Slow helpers at times: the walk ends (its budget, a directory
		// handed over) while they read. Each walk waits for one to join.
		setHelpTest(time.Duration(seed%2)*100*time.Microsecond, true)
		root := helpersFixture(t, seed, seed%2 == 0)
		fd, st, anc := openRoot(t, root)
		for _, budget := range []int{5, 60, 300, 1 << 20} {
			for _, mode := range []Mode{0, TreeAllLinks | MTime, TreeHandMixed} {
				for _, helpers := range []int{1, 3} {
					var live Live
					live.Jobs.Store(int32(helpers + 1))
					live.Running.Store(1)
					live.Spinning.Store(1) // the walk does not end for a free worker
					stop := startHelpers(&live, helpers)
					r := NewReader()
					startTree(t, r, root, fd)
					tr := r.Tree(fd, st.Dev, anc, budget, mode, &live)
					if live.walk.Load() != 0 {
						t.Fatal("the walk returned open to helpers")
					}
					helped += stop()
					checkHandedFdsN(t, tr.Nodes, helpers+1)
					checkWalk(t, root, &tr, mode)
				}
			}
		}
	}
	if helped == 0 {
		t.Fatal("no helper read a directory")
	}
	t.Logf("helpers read %d directories", helped)
}

// TestTreeSolo: a walk no helper joins, checked as TestTreeHelpers checks
// one with helpers (the oracle against the walk itself).
func TestTreeSolo(t *testing.T) {
	for seed := int64(1); seed <= 2; seed++ {
		root := treeFixture(t, seed, seed == 2)
		fd, st, anc := openRoot(t, root)
		r := NewReader()
		startTree(t, r, root, fd)
		tr := r.Tree(fd, st.Dev, anc, 1<<20, 0, nil)
		checkHandedFds(t, tr.Nodes)
		if read := checkWalk(t, root, &tr, 0); read == 0 {
			t.Fatal("no directory read")
		}
	}
}

// TestTreeHelpersLeaveForStack: a helper whose caller has work of its own
// (live.Stacked) takes nothing from the walk; the walk reads it all.
func TestTreeHelpersLeaveForStack(t *testing.T) {
	if !CanHelp {
		t.Skip("this build's subtree walk takes no helpers")
	}
	root := helpersFixture(t, 1, false)
	fd, st, anc := openRoot(t, root)
	var live Live
	live.Jobs.Store(2)
	live.Running.Store(1)
	live.Spinning.Store(1)
	live.Stacked.Store(1)
	stop := startHelpers(&live, 1)
	r := NewReader()
	startTree(t, r, root, fd)
	tr := r.Tree(fd, st.Dev, anc, 1<<20, 0, &live)
	helped := stop()
	checkHandedFds(t, tr.Nodes)
	if read := checkWalk(t, root, &tr, 0); read != len(tr.Nodes) {
		t.Errorf("%d of %d directories read", read, len(tr.Nodes))
	}
	if helped != 0 {
		t.Errorf("helpers read %d directories with work of their own", helped)
	}
}
