package inodeset

import "math/bits"

// table is an open-addressing hash set of inode numbers: one uint64 per
// slot, linear probing, no per-key allocation. Slot value 0 means empty,
// so inode 0 (which no file system hands out, but a record may carry) is
// kept in a flag. The table grows by half when it is 7/8 full, and its
// slot count need not be a power of two: a key's home slot is the high
// word of hash*len (a multiply, no division). Full between 7/12 and 7/8,
// it holds 9 to 14 bytes per key, where a Go map of the same keys holds
// about 23.
type table struct {
	slots []uint64
	n     int // keys in slots
	zero  bool
}

// home is the slot where the search for ino starts. Inode numbers come in
// runs; the multiplicative hash (Fibonacci hashing) spreads a run evenly.
func (t *table) home(ino uint64) int {
	hi, _ := bits.Mul64(ino*0x9E3779B97F4A7C15, uint64(len(t.slots)))
	return int(hi)
}

// add inserts ino, reporting whether it was absent.
func (t *table) add(ino uint64) bool {
	if ino == 0 {
		added := !t.zero
		t.zero = true
		return added
	}
	if (t.n+1)*8 > len(t.slots)*7 {
		t.grow()
	}
	i := t.home(ino)
	for {
		switch t.slots[i] {
		case 0:
			t.slots[i] = ino
			t.n++
			return true
		case ino:
			return false
		}
		if i++; i == len(t.slots) {
			i = 0
		}
	}
}

// has reports whether ino is in the table.
func (t *table) has(ino uint64) bool {
	if ino == 0 {
		return t.zero
	}
	if len(t.slots) == 0 {
		return false
	}
	for i := t.home(ino); ; {
		switch t.slots[i] {
		case 0:
			return false
		case ino:
			return true
		}
		if i++; i == len(t.slots) {
			i = 0
		}
	}
}

func (t *table) len() int {
	if t.zero {
		return t.n + 1
	}
	return t.n
}

func (t *table) grow() {
	old := t.slots
	size := len(old) + len(old)/2
	if size < 64 {
		size = 64
	}
	t.slots = make([]uint64, size)
	for _, ino := range old {
		if ino == 0 {
			continue
		}
		i := t.home(ino)
		for t.slots[i] != 0 {
			if i++; i == len(t.slots) {
				i = 0
			}
		}
		t.slots[i] = ino
	}
}
