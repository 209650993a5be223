package inodeset

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"
)

func TestAddOnce(t *testing.T) {
	s := New(0)
	if !s.Add(Key{1, 42}) {
		t.Fatal("first Add of a key returned false")
	}
	if s.Add(Key{1, 42}) {
		t.Fatal("second Add of a key returned true")
	}
	if !s.Add(Key{2, 42}) {
		t.Fatal("same inode on another device was taken as seen")
	}
	if got := s.Len(); got != 2 {
		t.Fatalf("Len = %d, want 2", got)
	}
}

func TestShardRounding(t *testing.T) {
	for _, c := range []struct{ in, want int }{{0, DefaultShards}, {1, 1}, {3, 4}, {128, 128}, {129, 256}} {
		if got := len(New(c.in).shards); got != c.want {
			t.Errorf("New(%d) has %d shards, want %d", c.in, got, c.want)
		}
	}
}

// Many goroutines add overlapping keys; exactly one Add per key may win.
func TestConcurrentAddWinsOnce(t *testing.T) {
	s := New(16)
	const keys, workers = 5000, 8
	var wins atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < keys; i++ {
				k := Key{Dev: uint64(i % 3), Ino: uint64((i*7 + w) % keys)}
				if s.Add(k) {
					wins.Add(1)
				}
			}
		}(w)
	}
	wg.Wait()
	if int(wins.Load()) != s.Len() {
		t.Fatalf("%d winning Adds for %d distinct keys", wins.Load(), s.Len())
	}
}

// BenchmarkAdd measures the set under contention from parallel workers that
// each insert runs of sequential inode numbers, as workers walking different
// directories do: the shard choice (shift 8 against shift 0, i.e. ino % n)
// and the shard count.
func BenchmarkAdd(b *testing.B) {
	for _, shift := range []uint{0, 8} {
		for _, n := range []int{16, 128, 1024} {
			b.Run(fmt.Sprintf("shift=%d/shards=%d", shift, n), func(b *testing.B) {
				s := NewShift(n, shift)
				var next atomic.Uint64
				b.ReportAllocs()
				b.RunParallel(func(pb *testing.PB) {
					// Each worker owns a block of 4096 sequential inodes
					// at a time, like one directory's files.
					base := next.Add(1) << 20
					i := uint64(0)
					for pb.Next() {
						s.Add(Key{Dev: 1, Ino: base + i})
						i++
						if i%4096 == 0 {
							base = next.Add(1) << 20
							i = 0
						}
					}
				})
			})
		}
	}
}

// A shard keeps its first device's inodes apart from other devices' keys:
// the same inode numbers on several devices, in every order, stay distinct,
// and Contains finds each in the right map.
func TestDevices(t *testing.T) {
	s := New(1) // one shard: every key meets the same maps
	devs := []uint64{7, 0, 7 << 40, 1}
	// Inode numbers of 2^59 and above (kept in the map, not in groups),
	// and the groups next to them.
	inos := func(yield func(uint64) bool) {
		for _, base := range []uint64{0, maxGrouped - 150, math.MaxUint64 - 149} {
			for i := uint64(0); i < 150; i++ {
				if !yield(base + i) {
					return
				}
			}
		}
	}
	for round := 0; round < 2; round++ {
		for _, d := range devs {
			for ino := range inos {
				k := Key{Dev: d, Ino: ino}
				if got := s.Add(k); got != (round == 0) {
					t.Fatalf("round %d: Add(%v) = %v", round, k, got)
				}
				if !s.Contains(k) {
					t.Fatalf("Contains(%v) = false after Add", k)
				}
			}
		}
	}
	if s.Contains(Key{Dev: 2, Ino: 1}) || s.Contains(Key{Dev: 7, Ino: 300}) {
		t.Fatal("Contains found a key never added")
	}
	if got := s.Len(); got != len(devs)*450 {
		t.Fatalf("Len = %d, want %d", got, len(devs)*450)
	}
	if New(4).Contains(Key{}) {
		t.Fatal("an empty set contains the zero key")
	}
}

// BenchmarkFill adds 409,000 keys of one device, spread over shards as a
// walk's hard-linked files are, and reports the heap the set holds per key
// (du's own hash table holds about 25 bytes per hard-linked inode).
func BenchmarkFill(b *testing.B) {
	const keys = 409000
	var perKey float64
	for i := 0; i < b.N; i++ {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		s := New(0)
		for ino := uint64(1); ino <= keys; ino++ {
			s.Add(Key{Dev: 66305, Ino: ino * 3})
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		perKey = float64(after.HeapAlloc-before.HeapAlloc) / keys
		runtime.KeepAlive(s)
	}
	b.ReportMetric(perKey, "B/key")
}

func TestShardSize(t *testing.T) {
	if got := unsafe.Sizeof(shard{}); got != 64 {
		t.Fatalf("a shard is %d bytes, want 64 (one cache line)", got)
	}
}

// The table agrees with a Go map on random keys, runs of neighbours and
// inode 0, through every growth.
func TestTableAgainstMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 20; round++ {
		var tb table
		ref := map[uint64]bool{}
		n := rng.IntN(20000)
		for i := 0; i < n; i++ {
			var ino uint64
			switch rng.IntN(3) {
			case 0:
				ino = rng.Uint64() % maxGrouped
			case 1:
				ino = uint64(rng.IntN(50000)) // dense: many repeats, 0 included
			default:
				ino = uint64(i) << 32
			}
			if got, want := tb.add(ino), !ref[ino]; got != want {
				t.Fatalf("add(%d) = %v, want %v", ino, got, want)
			}
			ref[ino] = true
		}
		if tb.len() != len(ref) {
			t.Fatalf("len = %d, want %d", tb.len(), len(ref))
		}
		for ino := range ref {
			if !tb.has(ino) {
				t.Fatalf("has(%d) = false after add", ino)
			}
		}
		for i := 0; i < 1000; i++ {
			ino := rng.Uint64() % maxGrouped
			if tb.has(ino) != ref[ino] {
				t.Fatalf("has(%d) = %v, want %v", ino, tb.has(ino), ref[ino])
			}
		}
	}
}

// BenchmarkWalkFill fills a fresh set as a walk of a snapshot tree does:
// six workers, each taking directories of 100 files with neighbouring
// inode numbers (a batch at a time, as a directory's records arrive),
// 409,600 keys in all; ns per key.

func BenchmarkWalkFill(b *testing.B) {
	const dirs, perDir, workers = 4096, 100, 6
	for i := 0; i < b.N; i++ {
		s := New(0)
		var next atomic.Int64
		var wg sync.WaitGroup
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				batch := make([]Key, perDir)
				for {
					d := next.Add(1) - 1
					if d >= dirs {
						return
					}
					for f := range batch {
						batch[f] = Key{Dev: 66305, Ino: uint64(d)*perDir + uint64(f) + 12}
					}
					ab := s.Batch()
					for _, k := range batch {
						ab.Add(k)
					}
					ab.Done()
				}
			}()
		}
		wg.Wait()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*dirs*perDir), "ns/key")
}
