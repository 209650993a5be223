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
package inodeset

import "sync"

// Key identifies a file: its device and inode numbers.
type Key struct {
	Dev uint64
	Ino uint64
}

type shard struct {
	mu sync.Mutex
	m  map[Key]struct{}
	_  [40]byte // keep neighbouring shards' locks off one cache line
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
	s := &Set{shards: make([]shard, p), mask: uint64(p - 1), shift: shift}
	for i := range s.shards {
		s.shards[i].m = make(map[Key]struct{})
	}
	return s
}

// Add inserts k and reports whether it was absent: true the first time a
// file is seen, false for every later link to it.
func (s *Set) Add(k Key) bool {
	sh := &s.shards[(k.Ino>>s.shift)&s.mask]
	sh.mu.Lock()
	_, seen := sh.m[k]
	if !seen {
		sh.m[k] = struct{}{}
	}
	sh.mu.Unlock()
	return !seen
}

// Contains reports whether k is in the set.
func (s *Set) Contains(k Key) bool {
	sh := &s.shards[(k.Ino>>s.shift)&s.mask]
	sh.mu.Lock()
	_, ok := sh.m[k]
	sh.mu.Unlock()
	return ok
}

// Len is the number of keys in the set.
func (s *Set) Len() int {
	n := 0
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		n += len(sh.m)
		sh.mu.Unlock()
	}
	return n
}
