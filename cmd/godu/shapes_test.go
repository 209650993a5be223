//go:build unix

package main

import (
	"fmt"
	"math/rand"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/godu-sh/godu/internal/bulk"
	"github.com/godu-sh/godu/internal/testtree"
)

// TestRandomShapes is the property over generated trees: on shapes drawn
// at random (kind, size, fan-out, depth, name length and bytes, hard links
// between directories and outside the tree, symlinks to directories), at
// a random worker count from 1 to 16 and GOMAXPROCS 1 or all CPUs, godu
// prints what du prints for random option sets, and makes exactly one
// statx per entry and one openat per directory (plus openSlack).
// GODU_SHAPES_N shapes (default 6) of up to GODU_SHAPES_SIZE entries
// (default 3,000), from GODU_SHAPES_SEED (default: the time, logged so
// that a failure can be replayed).
func TestRandomShapes(t *testing.T) {
	needDu(t)
	n, seed, size := 6, time.Now().UnixNano(), 3000
	if v, err := strconv.Atoi(os.Getenv("GODU_SHAPES_N")); err == nil {
		n = v
	}
	if v, err := strconv.Atoi(os.Getenv("GODU_SHAPES_SIZE")); err == nil {
		size = v
	}
	if v, err := strconv.ParseInt(os.Getenv("GODU_SHAPES_SEED"), 10, 64); err == nil {
		seed = v
	}
	t.Logf("GODU_SHAPES_SEED=%d", seed)
	rng := rand.New(rand.NewSource(seed))
	counted := !onXnu && bulk.Variant != "portable" && straceWorks()
	optionSets := [][]string{{"-s"}, {"-a"}, {"-l"}, {"-S"}, {"--inodes"}, {"-b"}, {"-d", "2"}, {"-a", "-l", "-x"},
		{"-c", "-s", "-L"}, {"-sL"}, {"-a", "--apparent-size", "-B1"}, {"-s", "-D"}}
	for i := 0; i < n; i++ {
		s := testtree.RandomShape(rng, size)
		jobs := 1 + rng.Intn(16)
		procs := []int{1, runtime.NumCPU()}[rng.Intn(2)]
		t.Run(fmt.Sprintf("%d-%s-j%d-p%d", i, s.Name, jobs, procs), func(t *testing.T) {
			dir := t.TempDir()
			op := testtree.Generate(t, dir, s)
			t.Setenv("GOMAXPROCS", strconv.Itoa(procs))
			own := []string{fmt.Sprintf("--jobs=%d", jobs)}
			// Every line holds a path: a deep chain's lines of every
			// directory are quadratic in its depth (15,000 levels of
			// 60-byte names: 7 GB from du and from godu). Past 64 MiB of
			// them, only the summaries (-s, -d 2).
			sets, listing := optionSets, [][]string{{"-s"}, {"-a"}}
			if lines := shapeOutput(s); lines > 64<<20 {
				t.Logf("about %d MiB of lines for every directory: summaries only", lines>>20)
				sets = [][]string{{"-s"}, {"-d", "2"}, {"-c", "-s", "-L"}, {"-sl"}, {"-d", "1", "-S"}}
				listing = [][]string{{"-s"}, {"-d", "2"}}
			}
			// du before 9.2 adds directories' sizes to apparent sizes;
			// the tests' correction finds them by path, which a chain
			// past PATH_MAX defeats: there, apparent sizes only where
			// the local du agrees with 9.2.
			deep := (s.Kind == "chain" || s.Kind == "comb") && s.Size*(max(s.NameLen, 6)+1) > 3500
			for k := 0; k < 3; k++ {
				args := sets[rng.Intn(len(sets))]
				if deep && apparentBytes(args) && needDu(t) < 902 {
					continue
				}
				compareWith(t, dir, own, args, []string{op})
			}
			if !counted {
				return
			}
			entries := countFind(t, dir, op)
			dirs := countFind(t, dir, op, "-type", "d")
			for _, args := range listing {
				calls := straceCounts(t, dir, 0, append(append([]string{}, own...), append(args, op)...))
				if calls["statx"] != entries {
					t.Errorf("%q: %d statx for %d entries", args, calls["statx"], entries)
				}
				if calls["openat"] > dirs+openSlack {
					t.Errorf("%q: %d openat for %d directories", args, calls["openat"], dirs)
				}
			}
		})
	}
}

// shapeOutput estimates the bytes of du's lines for every directory of s
// (its deepest chain of directories, each line a path as long as its
// depth).
func shapeOutput(s testtree.Shape) int {
	name := max(s.NameLen, 6) + 1
	switch s.Kind {
	case "chain", "comb":
		return s.Size * s.Size * name / 2 * 3
	case "random":
		depth := 3500 / name // the generator's bound
		return s.Size * depth * name
	}
	return 0
}
