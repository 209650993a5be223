//go:build !godu_xnu && !godu_portable

// The subtree walk is the Linux reader's alone: the darwin reader (tag
// godu_xnu) and the portable reader (tag godu_portable) have none to test.

package bulk

import (
	"fmt"
	"math/rand"
	"os"
	osexec "os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/godu-sh/godu/internal/testtree"
)

// treeFixture builds a root holding only subdirectories, nested up to five
// levels, with files, symlinks, hard links within and across directories,
// and, if big, a directory too big for half the kernel buffer.
func treeFixture(t *testing.T, seed int64, big bool) string {
	rng := rand.New(rand.NewSource(seed))
	root := t.TempDir()
	for i := 0; i < 3; i++ {
		testtree.Random(t, filepath.Join(root, fmt.Sprintf("top%d", i)), rng, 4, 9, 4, 8)
	}
	os.MkdirAll(filepath.Join(root, "top0"), 0o755)
	if big {
		dir := filepath.Join(root, "top0", "big")
		os.Mkdir(dir, 0o755)
		for i := 0; i < 800; i++ {
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("quite-a-long-name-for-a-file-%04d", i)), nil, 0o644)
		}
		// A directory a walk with TreeHandMixed ends at (a few
		// subdirectories among MixedFiles files), one with too few files
		// and one with too many subdirectories, which it reads.
		for name, n := range map[string][2]int{"mixed": {3, MixedFiles}, "few": {3, MixedFiles - 1}, "many": {MixedDirs + 1, MixedFiles}} {
			dir := filepath.Join(root, "top1", name)
			for i := 0; i < n[0]; i++ {
				os.MkdirAll(filepath.Join(dir, fmt.Sprint("sub", i)), 0o755)
				os.WriteFile(filepath.Join(dir, fmt.Sprint("sub", i), "f"), []byte("x"), 0o644)
			}
			for i := 0; i < n[1]; i++ {
				os.WriteFile(filepath.Join(dir, fmt.Sprint("file", i)), nil, 0o644)
			}
		}
	}
	return root
}

// startTree lists root's subdirectories into r as a walk's first nodes.
func startTree(t *testing.T, r *Reader, root string, rootfd int) {
	ents, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	r.TreeStart()
	for _, e := range ents {
		rec, err := Lstat(rootfd, e.Name(), MTime)
		if err != nil || rec.Type != Directory {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		if !r.TreeAdd(&rec, []byte(e.Name())) {
			t.Fatal("TreeAdd refused a node")
		}
	}
}

// TestTreeCoresAgree: the build's subtree walk and the Go one return the
// same nodes, records and sums, for every budget and mode. A directory's
// first getdents64 may return less than fits (ext4 lists an indexed
// directory in parts, as it finds them in its cache): the walk then
// takes it for one too big and hands it over, in one walk and not in the
// other. Such a pair of walks is run again, up to five times.
func TestTreeCoresAgree(t *testing.T) {
	for seed := int64(1); seed <= 3; seed++ {
		root := treeFixture(t, seed, seed == 3)
		fd, st, anc := openRoot(t, root)
		for _, budget := range []int{1, 5, 60, 1 << 20} {
			for _, mode := range []Mode{0, MTime, TreeOneFS, TreeAllLinks | CTime, TreeHandMixed, TreeHandMixed | ATime, TreeLinkIDs | MTime} {
				var got [2]Tree
				for try := 0; try < 5 && (try == 0 || !reflect.DeepEqual(got[0], got[1])); try++ {
					for k, walk := range []func(*treeCtl, int, []uint64, *Reader){coreTree, goTree} {
						r := NewReader()
						startTree(t, r, root, fd)
						t2 := r.treeCall(walk, fd, st.Dev, anc, budget, mode)
						t2.Nodes = append([]TreeNode(nil), t2.Nodes...)
						checkHandedFds(t, t2.Nodes)
						t2.Links.Records = append([]Record(nil), t2.Links.Records...)
						t2.Links.names = append([]byte(nil), t2.Links.names...)
						t2.tnames = append([]byte(nil), t2.tnames...)
						got[k] = t2
					}
				}
				if !reflect.DeepEqual(got[0], got[1]) {
					t.Fatalf("seed %d budget %d mode %#x: %s walk\n%+v\ngo walk\n%+v", seed, budget, mode, Variant, got[0], got[1])
				}
			}
		}
	}
}

// TestTreeSums: with budget to spare and no directory left, a walk's sums
// and hard-link records add up to GNU du's total below the root.
func TestTreeSums(t *testing.T) {
	root := treeFixture(t, 7, false)
	fd, st, anc := openRoot(t, root)
	r := NewReader()
	startTree(t, r, root, fd)
	tr := r.Tree(fd, st.Dev, anc, 1<<20, 0, nil)
	links := map[uint64]int64{}
	for _, rec := range tr.Links.Records {
		links[rec.Ino] = rec.Blocks
	}
	blocks := tr.Sum.Blocks
	for _, b := range links {
		blocks += b
	}
	for _, n := range tr.Nodes {
		if n.Done == 0 {
			t.Fatalf("%s left unread", tr.NodeName(&n))
		}
	}
	for _, args := range [][]string{{"-s", "-B512"}, {"-s", "--inodes"}} {
		out, err := exec(t, "du", append(args, root)...)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := strconv.ParseInt(strings.Fields(out)[0], 10, 64)
		got := blocks + st.Blocks
		if args[1] == "--inodes" {
			got = int64(tr.Dirs+tr.Files) + int64(len(links)) + 1
		}
		if got != want {
			t.Errorf("du %v: %d, walk %d", args, want, got)
		}
	}
}

func exec(t *testing.T, name string, args ...string) (string, error) {
	out, err := osexec.Command(name, args...).Output()
	return string(out), err
}

// openRoot opens the directory root for the test's duration, and returns
// it, its stat and the identities a walk from it starts with (its own).
func openRoot(t *testing.T, root string) (int, unix.Stat_t, *Idents) {
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	var st unix.Stat_t
	unix.Fstat(fd, &st)
	anc := &Idents{}
	anc.Add(st.Dev, st.Ino)
	return fd, st, anc
}

// checkHandedFds: a walk hands back the descriptor of exactly the read
// directories it left subdirectories of, and of at most one unread
// directory (the one it opened and ended at, rewound), each open on that
// directory; the test closes them and marks them 0, the same in every
// core. It returns the unread directory handed over, or -1.
func checkHandedFds(t *testing.T, nodes []TreeNode) int {
	t.Helper()
	return checkHandedFdsN(t, nodes, 1)
}

// checkHandedFdsN is checkHandedFds where a walk may hand over up to most
// unread directories (one per reader of a walk with helpers); it returns
// the last.
func checkHandedFdsN(t *testing.T, nodes []TreeNode, most int) int {
	t.Helper()
	nhanded := 0
	leftBelow := make([]bool, len(nodes))
	for _, nd := range nodes {
		if nd.Done == 0 && nd.Parent >= 0 {
			leftBelow[nd.Parent] = true
		}
	}
	handed := -1
	for i := range nodes {
		nd := &nodes[i]
		if nd.Done == 0 && nd.Fd >= 0 {
			if nhanded++; nhanded > most {
				t.Fatalf("nodes %d and %d: more than %d handed over unread", handed, i, most)
			}
			handed = i
			if off, err := unix.Seek(int(nd.Fd), 0, 1); err != nil || off != 0 {
				t.Fatalf("node %d handed over at offset %d (%v), not rewound", i, off, err)
			}
		} else if want := nd.Done != 0 && leftBelow[i]; (nd.Fd >= 0) != want {
			t.Fatalf("node %d (read %d, left below it %v) handed back descriptor %d", i, nd.Done, leftBelow[i], nd.Fd)
		}
		if nd.Fd < 0 {
			continue
		}
		var st unix.Stat_t
		if err := unix.Fstat(int(nd.Fd), &st); err != nil || st.Ino != nd.Ino || uint64(st.Dev) != nd.Dev {
			t.Fatalf("node %d: descriptor %d is not its directory (%v)", i, nd.Fd, err)
		}
		unix.Close(int(nd.Fd))
		nd.Fd = 0
	}
	return handed
}

// TestTreeHandsMixed: with TreeHandMixed, a walk ends at a directory of
// 1 to MixedDirs subdirectories among MixedFiles files or more, handed
// over open and unread; it reads those with fewer files or more
// subdirectories, and, without the mode, every one; in every core.
func TestTreeHandsMixed(t *testing.T) {
	root := treeFixture(t, 3, true)
	fd, st, anc := openRoot(t, root)
	for _, walk := range []func(*treeCtl, int, []uint64, *Reader){coreTree, goTree} {
		var handed []string
		// Each walk starts with what the last left (its nodes not read),
		// until one hands nothing over; each lists top1's directories.
		for _, mode := range []Mode{0, TreeHandMixed} {
			read := map[string]bool{}
			r := NewReader()
			r.TreeStart()
			for _, name := range []string{"top1/few", "top1/many", "top1/mixed"} {
				rec, err := Lstat(fd, name, 0)
				if err != nil {
					t.Fatal(err)
				}
				r.TreeAdd(&rec, []byte(name))
			}
			tr := r.treeCall(walk, fd, st.Dev, anc, 1<<20, mode)
			i := checkHandedFds(t, tr.Nodes)
			for j := range tr.Nodes {
				if tr.Nodes[j].Parent < 0 && tr.Nodes[j].Done != 0 {
					read[string(tr.NodeName(&tr.Nodes[j]))] = true
				}
			}
			if i >= 0 {
				handed = append(handed, string(tr.NodeName(&tr.Nodes[i])))
			}
			switch {
			case mode == 0 && (i >= 0 || len(read) != 3):
				t.Errorf("%s without TreeHandMixed: read %v, handed %d", Variant, read, i)
			case mode != 0 && (i < 0 || handed[len(handed)-1] != "top1/mixed" || !read["top1/few"] || !read["top1/many"]):
				t.Errorf("%s with TreeHandMixed: read %v, handed %v", Variant, read, handed)
			}
		}
	}
}

// TestTreeHandsOver: a directory too big for the walk, which the walk
// opened and read a part of, is handed to the caller open and rewound (it
// is never opened twice), and the walk ends there; in every core.
func TestTreeHandsOver(t *testing.T) {
	root := treeFixture(t, 3, true)
	fd, st, anc := openRoot(t, root)
	for _, walk := range []func(*treeCtl, int, []uint64, *Reader){coreTree, goTree} {
		r := NewReader()
		startTree(t, r, root, fd)
		tr := r.treeCall(walk, fd, st.Dev, anc, 1<<20, 0)
		i := checkHandedFds(t, tr.Nodes)
		if i < 0 || string(tr.NodeName(&tr.Nodes[i])) != "big" {
			t.Fatalf("%d nodes, none the big directory handed over (%d)", len(tr.Nodes), i)
		}
	}
}

// TestTreeYields: with a worker of the caller's free and no directory
// waiting for one (Live), a walk ends at the first directory past
// YieldMin entries and directories read, leaving the directories it found
// to the caller, on both cores; with every worker busy, or a directory
// waiting, or no Live, it reads the whole tree.
func TestTreeYields(t *testing.T) {
	defer func(m int) { YieldMin = m }(YieldMin)
	root := t.TempDir()
	testtree.Generate(t, root, testtree.Shape{Kind: "kary", Size: 4, K: 4, Files: 3})
	root = filepath.Join(root, "t")
	fd, st, anc := openRoot(t, root)
	const all = 4 + 16 + 64 + 256 // directories below the root
	walkOnce := func(core func(*treeCtl, int, []uint64, *Reader), live *Live) (read int, t2 Tree, handed bool) {
		r := NewReader()
		r.TreeStart()
		ents, err := os.ReadDir(root)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if rec, err := Lstat(fd, e.Name(), 0); err == nil && rec.Type == Directory {
				r.TreeAdd(&rec, []byte(e.Name()))
			}
		}
		r.tlive = live
		t2 = r.treeCall(core, fd, st.Dev, anc, 1<<20, 0)
		r.tlive = nil
		handed = checkHandedFds(t, t2.Nodes) >= 0 // (and closes the descriptors)
		for _, nd := range t2.Nodes {
			if nd.Done != 0 {
				read++
			}
		}
		return read, t2, handed
	}
	// ext4 may list a directory in parts: the walk then takes it for one
	// too big, hands it over (an unread node with a descriptor) and ends.
	// Such a walk is run again, up to five times.
	walk := func(core func(*treeCtl, int, []uint64, *Reader), live *Live) (read int, t2 Tree) {
		for try := 0; ; try++ {
			handed := false
			if read, t2, handed = walkOnce(core, live); !handed || try == 4 {
				return read, t2
			}
		}
	}
	live := func(running, stacked, jobs int32) *Live {
		l := &Live{}
		l.Jobs.Store(jobs)
		l.Running.Store(running)
		l.Stacked.Store(stacked)
		return l
	}
	for _, core := range []struct {
		name string
		f    func(*treeCtl, int, []uint64, *Reader)
	}{{Variant, coreTree}, {"go", goTree}} {
		for _, busy := range []*Live{nil, live(2, 0, 2), live(1, 3, 2), live(6, 0, 6)} {
			if read, _ := walk(core.f, busy); read != all {
				t.Errorf("%s, live %+v: %d directories read, want all %d", core.name, busy, read, all)
			}
		}
		for _, min := range []int{1, 10, 40, 200} {
			YieldMin = min
			read, t2 := walk(core.f, live(1, 0, 2))
			// What the walk read: the directories, their files, and the
			// subdirectories examined in them.
			work := int(t2.Dirs + t2.Files)
			for _, nd := range t2.Nodes {
				if nd.Parent >= 0 && t2.Nodes[nd.Parent].Done != 0 {
					work++
				}
			}
			last := 3 + 4 + 1 // the most one directory adds: its files, subdirectories and itself
			if read == 0 || work < min || work >= min+last || read >= all {
				t.Errorf("%s, YieldMin %d, a worker free: %d directories read (of %d), %d entries and directories; want the walk to end at the first directory past %d",
					core.name, min, read, all, work, min)
			}
		}
		YieldMin = 1 << 30
		if read, _ := walk(core.f, live(1, 0, 2)); read != all {
			t.Errorf("%s, YieldMin past the tree: %d directories read, want all %d", core.name, read, all)
		}
	}
}

// TestTreeOpenErr: a directory the walk fails to open is left unread
// with the errno, for the caller to report without opening it again;
// in every core. (A directory removed after it was listed: ENOENT.)
func TestTreeOpenErr(t *testing.T) {
	for k, walk := range []func(*treeCtl, int, []uint64, *Reader){coreTree, goTree} {
		root := t.TempDir()
		for _, d := range []string{"a/x", "gone/y", "z"} {
			if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		fd, st, _ := openRoot(t, root)
		r := NewReader()
		startTree(t, r, root, fd)
		if err := os.RemoveAll(filepath.Join(root, "gone")); err != nil {
			t.Fatal(err)
		}
		tr := r.treeCall(walk, fd, st.Dev, nil, 1<<20, 0)
		found := false
		for i := range tr.Nodes {
			nd := &tr.Nodes[i]
			name := string(tr.NodeName(nd))
			switch {
			case name == "gone":
				found = true
				if nd.Done != 0 || nd.Fd >= 0 || unix.Errno(nd.Err) != unix.ENOENT {
					t.Errorf("core %d: gone: read %d fd %d err %d, want unread, ENOENT", k, nd.Done, nd.Fd, nd.Err)
				}
			case nd.Err != 0 || nd.Done == 0:
				t.Errorf("core %d: %s: read %d err %d", k, name, nd.Done, nd.Err)
			}
		}
		if !found {
			t.Errorf("core %d: no node for the removed directory", k)
		}
		checkHandedFds(t, tr.Nodes)
	}
}

// TestTreeLinkIDs: with TreeLinkIDs a walk returns every hard link it
// meets without its name, in both cores, and names take no room: six
// directories of 60 hard-linked files of 200-byte names (72 kB of names,
// more than a fresh Reader's room for link names) are read in the first
// walk, where without the flag the walk runs out of room and leaves one.
func TestTreeLinkIDs(t *testing.T) {
	root := t.TempDir()
	out := filepath.Join(root, "outside")
	want := map[uint64]bool{}
	for d := 0; d < 6; d++ {
		dir := filepath.Join(root, "d", fmt.Sprint("links", d))
		for _, dd := range []string{dir, out} {
			if err := os.MkdirAll(dd, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		for i := 0; i < 60; i++ {
			name := fmt.Sprintf("%d-%02d-%s", d, i, strings.Repeat("n", 195))
			f := filepath.Join(dir, name)
			if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Link(f, filepath.Join(out, name)); err != nil {
				t.Fatal(err)
			}
			var st unix.Stat_t
			unix.Lstat(f, &st)
			want[st.Ino] = true
		}
	}
	fd, st, anc := openRoot(t, filepath.Join(root, "d"))
	for _, walk := range []func(*treeCtl, int, []uint64, *Reader){coreTree, goTree} {
		for _, mode := range []Mode{0, TreeLinkIDs} {
			r := NewReader()
			startTree(t, r, filepath.Join(root, "d"), fd)
			tr := r.treeCall(walk, fd, st.Dev, anc, 1<<20, mode)
			unread := 0
			for _, n := range tr.Nodes {
				if n.Done == 0 {
					unread++
				}
				if n.Fd > 0 {
					unix.Close(int(n.Fd))
				}
			}
			if mode == 0 {
				if unread == 0 || r.tctl.linksFull == 0 {
					t.Fatalf("walk %d without TreeLinkIDs: %d left, links full %d: the fixture's names fit", k(walk), unread, r.tctl.linksFull)
				}
				continue
			}
			if unread != 0 || len(tr.Links.Records) != len(want) {
				t.Fatalf("walk %d with TreeLinkIDs: %d left, %d links of %d", k(walk), unread, len(tr.Links.Records), len(want))
			}
			for _, rec := range tr.Links.Records {
				if !want[rec.Ino] || rec.NameLen != 0 || rec.Nlink != 2 {
					t.Fatalf("walk %d with TreeLinkIDs: link %+v", k(walk), rec)
				}
			}
			if len(tr.Links.names) != 0 {
				t.Fatalf("walk %d with TreeLinkIDs: %d bytes of names", k(walk), len(tr.Links.names))
			}
		}
	}
}

// k names a core in messages: 0 the build's, 1 the Go one.
func k(walk func(*treeCtl, int, []uint64, *Reader)) int {
	if reflect.ValueOf(walk).Pointer() == reflect.ValueOf(goTree).Pointer() {
		return 1
	}
	return 0
}

// TestPutTree: a Reader gives its subtree walk buffers back, and the next
// Reader that walks takes them instead of making new ones (no collection
// between); one with subdirectories listed for a walk (TreeAdd) keeps
// them.
func TestPutTree(t *testing.T) {
	r := NewReader()
	r.TreeStart()
	rec := Record{Type: Directory, Ino: 1}
	if !r.TreeAdd(&rec, []byte("a")) {
		t.Fatal("TreeAdd refused a node")
	}
	nodes := &r.nodes[0]
	r.PutTree() // a node listed: kept
	if r.nodes == nil || &r.nodes[0] != nodes || r.nnodes != 1 {
		t.Fatal("PutTree gave away buffers holding a listed node")
	}
	r.TreeStart()
	r.nnodes = 0
	r.PutTree()
	if r.nodes != nil || r.tnames != nil || r.tscr != nil || r.trecs != nil {
		t.Fatal("PutTree kept the buffers")
	}
	r2 := NewReader()
	if !r2.TreeAdd(&rec, []byte("b")) {
		t.Fatal("TreeAdd refused a node")
	}
	// (The race detector's sync.Pool drops some of what it is given.)
	if &r2.nodes[0] != nodes && !raceEnabled {
		t.Fatal("a new Reader made buffers where a set was free")
	}
	r2.TreeStart()
	r2.PutTree()
}
