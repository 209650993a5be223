package walk

import (
	"math/rand"
	"slices"
	"testing"
)

// TestHeapOrder: the shared stack kept as a heap hands directories out in
// du's order (before), whatever the names: prefixes of one another, names
// alike in their first 8 bytes, bytes past 0x7f, siblings and cousins at
// several depths, pushed in a random order and popped while pushing.
func TestHeapOrder(t *testing.T) {
	alphabet := []string{"a", "b", "ab", "\x7f", "\x80", "\xff", "é", "0", "~", " "}
	name := func(rng *rand.Rand) string {
		var s string
		if rng.Intn(3) == 0 {
			s = "same-first-8-bytes-" // differ only past 8 bytes
		}
		for n := rng.Intn(4); n >= 0; n-- {
			s += alphabet[rng.Intn(len(alphabet))]
		}
		return s
	}
	for seed := int64(1); seed <= 200; seed++ {
		rng := rand.New(rand.NewSource(seed))
		root := &dir{name: "/r"}
		all := []*dir{root}
		used := map[*dir]map[string]bool{} // names are unique among siblings
		for i := 0; i < 1+rng.Intn(400); i++ {
			p := all[rng.Intn(len(all))]
			n := name(rng)
			if used[p] == nil {
				used[p] = map[string]bool{}
			}
			if used[p][n] {
				continue
			}
			used[p][n] = true
			all = append(all, &dir{parent: p, name: n, depth: p.depth + 1})
		}
		ds := all[1:]
		rng.Shuffle(len(ds), func(i, j int) { ds[i], ds[j] = ds[j], ds[i] })
		sc := &scan{heap: true}
		var got []*dir
		for i, d := range ds {
			sc.heapPush(d)
			if rng.Intn(4) == 0 { // a pop now takes the least pushed so far
				least := slices.MinFunc(ds[:i+1], func(a, b *dir) int {
					if slices.Contains(got, a) {
						return 1
					}
					if slices.Contains(got, b) || before(a, b) {
						return -1
					}
					return 1
				})
				d := sc.heapPop()
				if before(least, d) {
					t.Fatalf("seed %d: popped %q (depth %d) before %q (depth %d)", seed, d.name, d.depth, least.name, least.depth)
				}
				got = append(got, d)
			}
		}
		rest := len(sc.stack)
		for len(sc.stack) > 0 {
			got = append(got, sc.heapPop())
		}
		tail := got[len(got)-rest:]
		for i := 1; i < len(tail); i++ {
			if before(tail[i], tail[i-1]) {
				t.Fatalf("seed %d: %q (depth %d) popped after %q (depth %d)", seed,
					tail[i].name, tail[i].depth, tail[i-1].name, tail[i-1].depth)
			}
		}
		if len(got) != len(ds) {
			t.Fatalf("seed %d: %d popped of %d", seed, len(got), len(ds))
		}
	}
}
