//go:build unix

package testtree

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// Shape describes a tree to generate: the extremes (a chain, a star, a
// comb, a complete k-ary tree) and random trees, each with names of a
// chosen length, optionally invalid UTF-8, and with files that may also
// be linked outside the generated tree.
type Shape struct {
	Name    string
	Kind    string // "chain", "star", "comb", "kary" or "random"
	Size    int    // chain depth, star fan-out, comb length, k-ary depth, random entries
	K       int    // k-ary fan-out
	NameLen int    // bytes per generated name (1..255); 0 means short names
	Binary  bool   // names hold bytes that are not UTF-8
	Outside bool   // every file gets a second link outside the tree
	Files   int    // k-ary, chain, comb: files in each directory (default 1)
	// Random trees: Links adds hard links between directories (to files
	// in a pool directory inside the tree), DirLinks symlinks to
	// directories inside the tree, ancestors among them.
	Links, DirLinks bool
	Seed            int64
}

// RandomShape draws a shape of any kind, its size, fan-out, name length
// and bytes, links and files per directory chosen by rng, with at most
// about maxEntries entries (and a chain at most maxEntries deep).
func RandomShape(rng *rand.Rand, maxEntries int) Shape {
	s := Shape{Seed: rng.Int63()}
	switch rng.Intn(8) {
	case 0:
		s.Kind, s.Size = "chain", 1+rng.Intn(maxEntries/2)
		if rng.Intn(2) == 0 { // many files at every level
			s.Files = 1 + rng.Intn(60)
			s.Size = 1 + rng.Intn(max(1, maxEntries/(2*(s.Files+1))))
		}
	case 1:
		s.Kind, s.Size = "comb", 1+rng.Intn(maxEntries/4)
	case 2:
		s.Kind, s.Size = "star", 1+rng.Intn(maxEntries)
	case 3:
		s.Kind, s.K = "kary", 2+rng.Intn(6)
		s.Files = rng.Intn(5)
		for n := s.K; n*s.K*(s.Files+1) < maxEntries; n *= s.K {
			s.Size++
		}
	default:
		s.Kind, s.Size = "random", 1+rng.Intn(maxEntries)
		s.Links, s.DirLinks = rng.Intn(2) == 0, rng.Intn(3) == 0
	}
	switch rng.Intn(4) {
	case 0:
		s.NameLen = 1 + rng.Intn(255)
	case 1:
		s.NameLen = 200 + rng.Intn(56)
	}
	s.Binary = rng.Intn(4) == 0
	s.Outside = rng.Intn(3) == 0
	s.Name = fmt.Sprintf("%s-%d-k%d-f%d-n%d-b%v-o%v-l%v-s%v", s.Kind, s.Size, s.K, s.Files, s.NameLen, s.Binary, s.Outside, s.Links, s.DirLinks)
	return s
}

// Shapes is a small set covering every kind, for tests that must stay
// fast; bigger ones are made by changing Size.
func Shapes() []Shape {
	return []Shape{
		{Name: "chain", Kind: "chain", Size: 300},
		{Name: "star", Kind: "star", Size: 2000},
		{Name: "comb", Kind: "comb", Size: 200},
		{Name: "kary", Kind: "kary", Size: 5, K: 3},
		{Name: "longnames", Kind: "random", Size: 600, NameLen: 200, Seed: 1},
		{Name: "binary", Kind: "random", Size: 600, NameLen: 40, Binary: true, Seed: 2},
		{Name: "outside", Kind: "random", Size: 600, Outside: true, Seed: 3},
		{Name: "random", Kind: "random", Size: 1500, Seed: 4},
	}
}

// Generate builds s in dir/t (and, for Outside, the second links in
// dir/out) working relative to directory descriptors, so depth is not
// bound by PATH_MAX. It returns the operand, "t".
func Generate(t testing.TB, dir string, s Shape) string {
	t.Helper()
	g := &gen{t: t, s: s, rng: rand.New(rand.NewSource(s.Seed))}
	g.out = g.mkdir(g.open(dir), "out")
	root := g.mkdir(g.open(dir), "t")
	switch s.Kind {
	case "chain":
		g.chain(root, s.Size, false)
	case "comb":
		g.chain(root, s.Size, true)
	case "star":
		for i := 0; i < s.Size; i++ {
			g.file(root, i)
		}
	case "kary":
		g.kary(root, s.Size, s.K)
	case "random":
		g.random(root, s.Size)
	default:
		t.Fatalf("unknown shape kind %q", s.Kind)
	}
	unix.Close(root)
	unix.Close(g.out)
	return "t"
}

type gen struct {
	t   testing.TB
	s   Shape
	rng *rand.Rand
	out int // directory holding the links outside the tree
	n   int // names made so far, for uniqueness
}

func (g *gen) open(p string) int {
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		g.t.Fatal(err)
	}
	return fd
}

// mkdir makes name in parent, closes parent and returns the new dir's fd.
func (g *gen) mkdir(parent int, name string) int { return Descend(g.t, parent, name) }

// name returns a fresh name of the shape's length: a unique prefix,
// padded with letters, or with bytes that are not UTF-8.
func (g *gen) name(kind byte) string {
	g.n++
	base := fmt.Sprintf("%c%d", kind, g.n)
	n := g.s.NameLen
	if n <= len(base) {
		return base
	}
	pad := strings.Repeat("n", n-len(base))
	if g.s.Binary {
		b := []byte(pad)
		for i := range b {
			b[i] = byte(0x80 + g.rng.Intn(0x7f)) // continuation and lead bytes, unpaired
		}
		pad = string(b)
	}
	return base + pad
}

// file makes a file of i%5000 bytes in dir, linked outside when asked,
// and returns its name.
func (g *gen) file(dir, i int) string {
	name := g.name('f')
	fd, err := unix.Openat(dir, name, unix.O_CREAT|unix.O_WRONLY|unix.O_EXCL|unix.O_CLOEXEC, 0o644)
	if err != nil {
		g.t.Fatal(err)
	}
	if sz := i % 5000; sz > 0 {
		unix.Ftruncate(fd, int64(sz))
	}
	unix.Close(fd)
	if g.s.Outside {
		if err := linkat(dir, name, g.out, fmt.Sprint("o", g.n)); err != nil {
			g.t.Fatal(err)
		}
	}
	return name
}

// chain makes depth nested directories, each holding the shape's Files
// files (one by default); a comb adds an empty directory and a symlink
// beside them.
func (g *gen) chain(fd, depth int, comb bool) {
	fd, err := unix.Dup(fd)
	if err != nil {
		g.t.Fatal(err)
	}
	for i := 0; i < depth; i++ {
		for j := range max(g.s.Files, 1) {
			g.file(fd, i+j)
		}
		if comb {
			if err := unix.Mkdirat(fd, g.name('e'), 0o755); err != nil {
				g.t.Fatal(err)
			}
			if err := symlinkat("..", fd, g.name('s')); err != nil {
				g.t.Fatal(err)
			}
		}
		fd = g.mkdir(fd, g.name('d'))
	}
	unix.Close(fd)
}

func (g *gen) kary(fd, depth, k int) {
	for i := range max(g.s.Files, 1) {
		g.file(fd, depth+i)
	}
	if depth == 0 {
		return
	}
	for i := 0; i < k; i++ {
		dup, err := unix.Dup(fd)
		if err != nil {
			g.t.Fatal(err)
		}
		sub := g.mkdir(dup, g.name('d'))
		g.kary(sub, depth-1, k)
		unix.Close(sub)
	}
}

// random spreads entries over a tree grown by descending into a new
// directory, climbing back, or adding a file, an empty directory, a
// symlink or a hard link to a file made earlier in the same directory.
func (g *gen) random(root, entries int) {
	rootDup, err := unix.Dup(root)
	if err != nil {
		g.t.Fatal(err)
	}
	stack := []int{rootDup}
	// Paths stay under PATH_MAX, so that path-based oracles (du's hard
	// link masks in the tests) see every entry; chains go deeper.
	maxDepth := 3500 / (max(g.s.NameLen, 8) + 1)
	var last string
	// The pool: files that links from anywhere in the tree lead to.
	pool, poolName, pooled := -1, "", []string(nil)
	if g.s.Links {
		dup, err := unix.Dup(root)
		if err != nil {
			g.t.Fatal(err)
		}
		poolName = g.name('p')
		pool = g.mkdir(dup, poolName)
		defer unix.Close(pool)
	}
	for i := 0; i < entries; i++ {
		top := stack[len(stack)-1]
		switch r := g.rng.Intn(100); {
		case r < 6 && pool >= 0:
			if len(pooled) == 0 || g.rng.Intn(3) == 0 {
				pooled = append(pooled, g.file(pool, i*31))
				continue
			}
			if err := linkat(pool, pooled[g.rng.Intn(len(pooled))], top, g.name('h')); err != nil {
				g.t.Fatal(err)
			}
		case r < 9 && g.s.DirLinks:
			// Up to an ancestor (a cycle under -L) or to the pool.
			up := g.rng.Intn(len(stack))
			target := strings.Repeat("../", up)
			if target == "" {
				target = "."
			}
			if pool >= 0 && g.rng.Intn(2) == 0 {
				target = strings.Repeat("../", len(stack)-1) + poolName
			}
			if err := symlinkat(target, top, g.name('s')); err != nil {
				g.t.Fatal(err)
			}
		case r < 12 && len(stack) < maxDepth:
			dup, err := unix.Dup(top)
			if err != nil {
				g.t.Fatal(err)
			}
			stack = append(stack, g.mkdir(dup, g.name('d')))
			last = ""
		case r < 20 && len(stack) > 1:
			unix.Close(top)
			stack = stack[:len(stack)-1]
			last = ""
		case r < 24:
			if err := unix.Mkdirat(top, g.name('e'), 0o755); err != nil {
				g.t.Fatal(err)
			}
		case r < 28:
			if err := symlinkat("../nowhere", top, g.name('s')); err != nil {
				g.t.Fatal(err)
			}
		case r < 34 && last != "":
			if err := linkat(top, last, top, g.name('h')); err != nil {
				g.t.Fatal(err)
			}
		default:
			last = g.file(top, i*97)
		}
	}
	for _, fd := range stack {
		unix.Close(fd)
	}
}
