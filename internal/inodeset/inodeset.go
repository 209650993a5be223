// Package inodeset is a concurrent set of (device, inode) pairs: the memory
// that makes a disk-usage walk count every hard-linked file once.
//
// The set is split into a power-of-two number of shards, each a map behind
// its own mutex. A key's shard is chosen by (ino >> 8) & (shards-1): file
// systems hand out inode numbers mostly in sequence, so the entries of one
// directory have neighbouring numbers. Dropping the low byte keeps a run of
// neighbours on one shard (one lock line warm in one worker's cache) while
// different directories, walked by different workers, land on different
// shards. Taking ino % shards instead would spread every directory over
// every lock and make all workers collide on all of them.
//
// Within a shard, the inodes of one device (the first the shard meets,
// nearly always the only one) are kept in an open-addressing table of
// groups of eight neighbouring inode numbers (table.go: 9 to 14 bytes per
// key at most, under 2 for runs of neighbours); keys of other devices, and
// inode numbers of 2^59 and above, go to a map. Both are made on first use, so an unused set costs no start-up
// time.
package inodeset

import "sync"

// Key identifies a file: its device and inode numbers.
type Key struct {
	Dev uint64
	Ino uint64
}

type shard struct {
	mu    sync.Mutex
	dev   uint64           // the device of the inodes in m, once m holds one
	m     table            // inode numbers on dev
	other map[Key]struct{} // keys on other devices
	// 64 bytes in all (TestShardSize), and a Set's shards, a power of two
	// of them, come in one allocation of 64<<k bytes, which Go's
	// allocator aligns to 64: neighbouring shards' locks never share a
	// cache line.
}

// add inserts k, reporting whether it was absent. The caller holds mu.
func (sh *shard) add(k Key) bool {
	if sh.m.len() == 0 {
		sh.dev = k.Dev
	}
	if k.Dev == sh.dev && k.Ino < maxGrouped {
		return sh.m.add(k.Ino)
	}
	if _, seen := sh.other[k]; seen {
		return false
	}
	if sh.other == nil {
		sh.other = make(map[Key]struct{})
	}
	sh.other[k] = struct{}{}
	return true
}

// has reports whether k is in the shard. The caller holds mu.
func (sh *shard) has(k Key) bool {
	if k.Dev == sh.dev && k.Ino < maxGrouped {
		return sh.m.has(k.Ino)
	}
	_, ok := sh.other[k]
	return ok
}

// Set is a concurrent set of Keys. The zero Set is not usable; call New.
type Set struct {
	shards []shard
	mask   uint64
	shift  uint
}

// DefaultShards is the shard count New uses for n <= 0.
const DefaultShards = 128

// New returns a set with n shards, rounded up to a power of two.
func New(n int) *Set {
	return NewShift(n, 8)
}

// NewShift is New with the number of low inode bits to drop before choosing
// a shard; shift 0 gives ino % shards. It exists to measure that choice.
func NewShift(n int, shift uint) *Set {
	if n <= 0 {
		n = DefaultShards
	}
	p := 1
	for p < n {
		p <<= 1
	}
	return &Set{shards: make([]shard, p), mask: uint64(p - 1), shift: shift}
}

// shard is the shard that holds k.
func (s *Set) shard(k Key) *shard { return &s.shards[(k.Ino>>s.shift)&s.mask] }

// Add inserts k and reports whether it was absent: true the first time a
// file is seen, false for every later link to it.
func (s *Set) Add(k Key) bool {
	sh := s.shard(k)
	sh.mu.Lock()
	added := sh.add(k)
	sh.mu.Unlock()
	return added
}

// Contains reports whether k is in the set.
func (s *Set) Contains(k Key) bool {
	sh := s.shard(k)
	sh.mu.Lock()
	ok := sh.has(k)
	sh.mu.Unlock()
	return ok
}

// Len is the number of keys in the set.
func (s *Set) Len() int {
	n := 0
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		n += sh.m.len() + len(sh.other)
		sh.mu.Unlock()
	}
	return n
}

// A Batch adds keys to a Set holding the lock of the shard it used last,
// so that a run of keys on one shard (the files of a directory, whose
// inode numbers are neighbours) takes and releases it once, not per key:
// fewer atomic operations, and less time for another worker to find the
// lock taken. Between Adds and until Done, the goroutine must not use the
// Set otherwise (it holds a shard's lock); one goroutine uses a Batch.
type Batch struct {
	s  *Set
	sh *shard // locked, or nil
}

// Batch returns a Batch adding to s.
func (s *Set) Batch() Batch { return Batch{s: s} }

// Add is Set.Add within the batch.
func (b *Batch) Add(k Key) bool {
	sh := b.s.shard(k)
	if sh != b.sh {
		if b.sh != nil {
			b.sh.mu.Unlock()
		}
		sh.mu.Lock()
		b.sh = sh
	}
	return sh.add(k)
}

// Done releases the lock the batch holds; the Batch may be used again.
func (b *Batch) Done() {
	if b.sh != nil {
		b.sh.mu.Unlock()
		b.sh = nil
	}
}
