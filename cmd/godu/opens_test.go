package main

import (
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/godu-sh/godu/internal/testtree"
	"golang.org/x/sys/unix"
)

// syscallCounts runs godu under strace and returns how many openat and
// statx calls it made.
func syscallCounts(t *testing.T, args ...string) (openat, statx int) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "strace")
	cmd := exec.Command("strace", append([]string{"-f", "-c", "-o", out, "-e", "trace=openat,statx", godu}, args...)...)
	cmd.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("strace godu %q: %v\n%s", args, err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 5 {
			continue
		}
		n, _ := strconv.Atoi(f[3])
		switch f[len(f)-1] {
		case "openat":
			openat = n
		case "statx":
			statx = n
		}
	}
	return openat, statx
}

// shape builds a tree under root and returns its directories and entries
// (the root included in both).
type shape struct {
	name  string
	build func(t *testing.T, root string) (dirs, entries int)
}

// chain builds depth nested directories, each holding a file, with
// descriptors (deeper than PATH_MAX allows by path).
func chain(depth, nameLen int) func(t *testing.T, root string) (int, int) {
	return func(t *testing.T, root string) (int, int) {
		fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY, 0)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.Repeat("d", nameLen)
		for i := 0; i < depth; i++ {
			f, err := unix.Openat(fd, "f", unix.O_CREAT|unix.O_WRONLY, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			unix.Close(f)
			if err := unix.Mkdirat(fd, name, 0o755); err != nil {
				t.Fatal(err)
			}
			n, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY, 0)
			if err != nil {
				t.Fatal(err)
			}
			unix.Close(fd)
			fd = n
		}
		unix.Close(fd)
		return depth + 1, 2*depth + 1
	}
}

// random builds a random tree: fan-out, depth, name lengths (bytes that
// are not UTF-8 among them), empty directories, and files with a second
// link outside the walked tree.
func random(seed int64, outside string) func(t *testing.T, root string) (int, int) {
	return func(t *testing.T, root string) (int, int) {
		rng := rand.New(rand.NewSource(seed))
		dirs, entries := 1, 1
		var grow func(dir string, depth int)
		grow = func(dir string, depth int) {
			n := rng.Intn(12)
			if rng.Intn(8) == 0 {
				n = 200 + rng.Intn(800)
			}
			for i := 0; i < n && entries < 6000; i++ {
				nm := make([]byte, 1+rng.Intn(60))
				for j := range nm {
					nm[j] = byte('a' + rng.Intn(26))
				}
				if rng.Intn(10) == 0 {
					nm[0] = 0xff
				}
				p := filepath.Join(dir, fmt.Sprintf("%s%d", nm, i))
				switch {
				case depth < 7 && rng.Intn(6) == 0:
					if err := os.Mkdir(p, 0o755); err != nil {
						t.Fatal(err)
					}
					dirs++
					entries++
					grow(p, depth+1)
				case rng.Intn(5) == 0:
					o := filepath.Join(outside, fmt.Sprintf("%d-%d", seed, entries))
					os.WriteFile(o, make([]byte, rng.Intn(9000)), 0o644)
					if err := os.Link(o, p); err != nil {
						t.Fatal(err)
					}
					entries++
				default:
					if err := os.WriteFile(p, make([]byte, rng.Intn(9000)), 0o644); err != nil {
						t.Fatal(err)
					}
					entries++
				}
			}
		}
		grow(root, 0)
		return dirs, entries
	}
}

// TestOneOpenPerDirectory: on every shape, godu opens each directory once
// (but for the rare reopen below) and examines each entry exactly once
// (statx), plus a constant per run measured on
// an empty directory, whatever the depth, the fan-out, the names' length or
// the links outside the tree; and its total is du's.
func TestOneOpenPerDirectory(t *testing.T) {
	if _, err := exec.LookPath("strace"); err != nil {
		t.Skip("strace is not installed")
	}
	needDu(t)
	empty := t.TempDir()
	baseOpen, baseStat := syscallCounts(t, "-s", empty)
	outside := t.TempDir()
	shapes := []shape{
		{"chain 3000", chain(3000, 1)},
		{"chain 6000", chain(6000, 1)},
		{"chain of long names", chain(1600, 255)},
	}
	for seed := int64(1); seed <= 4; seed++ {
		shapes = append(shapes, shape{fmt.Sprintf("random %d", seed), random(seed, outside)})
	}
	for _, sh := range shapes {
		root := t.TempDir()
		dirs, entries := sh.build(t, root)
		want := testtree.Run(t, root, nil, "du", "-s", ".").Stdout
		for _, jobs := range []string{"1", "2", "16"} {
			if got := testtree.Run(t, root, nil, godu, "-j", jobs, "-s", ".").Stdout; got != want {
				t.Errorf("%s, -j %s: godu %q, du %q", sh.name, jobs, got, want)
			}
			opens, stats := syscallCounts(t, "-j", jobs, "-s", root)
			// The empty run opened and examined its one directory. A
			// subtree walk that stops on a directory whose subdirectories'
			// names do not fit its arena opens that one again below its
			// parent: one open per such call, at most 1 in 32 directories
			// (255-byte names); and a few per walk (8 allowed), whatever its size.
			if opens-baseOpen > dirs-1+(dirs-1)/32+8 || opens-baseOpen < dirs-1 || stats-baseStat != entries-1 {
				t.Errorf("%s, -j %s: %d openat for %d directories, %d statx for %d entries (%d and %d on an empty directory)",
					sh.name, jobs, opens, dirs, stats, entries, baseOpen, baseStat)
			}
		}
	}
}
