package inodeset

import "math/bits"

// table is an open-addressing hash set of inode numbers below maxGrouped,
// kept in groups of eight neighbours: a slot holds a group's number
// (ino >> 3) in its high 56 bits and, in its low 8, which of the group's
// eight inodes are present. A file system hands out the inode numbers of
// a directory's files mostly in sequence, so the files of one directory
// fill a few slots, not one each: a walk adding them touches one cache
// line per eight files where a slot per inode, spread by the hash, costs
// a miss per file; and the table, smaller by up to eight, is copied less
// often as it grows. Slot value 0 means empty (a group in a slot has a
// bit set). Linear probing, no per-key allocation; the table grows by
// half when 7/8 of its slots hold a group, and its slot count need not be
// a power of two: a group's home slot is the high word of hash*len (a
// multiply, no division). Full between 7/12 and 7/8, it holds 9 to 14
// bytes per inode when no two share a group, under 2 when they come in
// runs, where a Go map of the same keys holds about 23.
type table struct {
	slots []uint64
	n     int // groups in slots
	keys  int // inodes
}

// maxGrouped bounds the inode numbers a table holds (a group number must
// fit in 56 bits); the shard keeps larger ones, which some network file
// systems hand out, in its map.
const maxGrouped = 1 << 59

// home is the slot where the search for group g starts. The
// multiplicative hash (Fibonacci hashing) spreads a run of groups evenly.
func (t *table) home(g uint64) int {
	hi, _ := bits.Mul64(g*0x9E3779B97F4A7C15, uint64(len(t.slots)))
	return int(hi)
}

// add inserts ino (< maxGrouped), reporting whether it was absent.
func (t *table) add(ino uint64) bool {
	g, bit := ino>>3, uint64(1)<<(ino&7)
	if (t.n+1)*8 > len(t.slots)*7 {
		t.grow()
	}
	i := t.home(g)
	for {
		v := t.slots[i]
		switch {
		case v == 0:
			t.slots[i] = g<<8 | bit
			t.n++
			t.keys++
			return true
		case v>>8 == g:
			if v&bit != 0 {
				return false
			}
			t.slots[i] = v | bit
			t.keys++
			return true
		}
		if i++; i == len(t.slots) {
			i = 0
		}
	}
}

// has reports whether ino is in the table.
func (t *table) has(ino uint64) bool {
	if len(t.slots) == 0 || ino >= maxGrouped {
		return false
	}
	g, bit := ino>>3, uint64(1)<<(ino&7)
	for i := t.home(g); ; {
		v := t.slots[i]
		switch {
		case v == 0:
			return false
		case v>>8 == g:
			return v&bit != 0
		}
		if i++; i == len(t.slots) {
			i = 0
		}
	}
}

func (t *table) len() int { return t.keys }

func (t *table) grow() {
	old := t.slots
	size := len(old) + len(old)/2
	if size < 64 {
		size = 64
	}
	t.slots = make([]uint64, size)
	// Written before it is read: memory fresh from the system, read
	// first, maps the shared zero page, and the first write then copies
	// it and interrupts every CPU running the walk's threads (a TLB
	// shootdown per page; add was the first source of them in perf).
	clear(t.slots)
	for _, v := range old {
		if v == 0 {
			continue
		}
		i := t.home(v >> 8)
		for t.slots[i] != 0 {
			if i++; i == len(t.slots) {
				i = 0
			}
		}
		t.slots[i] = v
	}
}
