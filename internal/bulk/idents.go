package bulk

// Idents is a set of directory identities (device, inode) with O(1)
// adds, removals and lookups: the directories above the one being read,
// against which a subdirectory is checked for a cycle (a bind mount of an
// ancestor, or a symlink to one under -L), as fts checks its active
// directories against a hash. The subtree walk's core reads it as is: an
// open-addressing table with linear probing of slots of three words
// (device, inode, used), a power of two of them (csrc/bulk.h,
// godu_ident_has). The zero value is empty; adding a key twice holds it
// twice.
type Idents struct {
	slots []uint64
	n     int
}

const identMinSlots = 16

// identHash is godu_ident_hash in csrc/bulk_linux.c.
func identHash(dev, ino uint64) uint64 {
	h := ino*0x9E3779B97F4A7C15 + dev*0xC2B2AE3D27D4EB4F
	return h ^ h>>32
}

// Len is the number of keys held.
func (s *Idents) Len() int { return s.n }

// Has reports whether (dev, ino) is in the set.
func (s *Idents) Has(dev, ino uint64) bool {
	if len(s.slots) == 0 {
		return false
	}
	m := uint64(len(s.slots)/3) - 1
	for i := identHash(dev, ino) & m; s.slots[3*i+2] != 0; i = (i + 1) & m {
		if s.slots[3*i] == dev && s.slots[3*i+1] == ino {
			return true
		}
	}
	return false
}

// Add puts (dev, ino) in the set.
func (s *Idents) Add(dev, ino uint64) {
	if 2*(s.n+1) > len(s.slots)/3 {
		s.grow()
	}
	m := uint64(len(s.slots)/3) - 1
	i := identHash(dev, ino) & m
	for s.slots[3*i+2] != 0 {
		i = (i + 1) & m
	}
	s.slots[3*i], s.slots[3*i+1], s.slots[3*i+2] = dev, ino, 1
	s.n++
}

func (s *Idents) grow() {
	old := s.slots
	s.slots = make([]uint64, 3*max(identMinSlots, 2*len(old)/3))
	// Written before it is read: memory fresh from the system, read first,
	// maps the shared zero page, and the first write then copies it and
	// flushes every CPU's TLB, an interrupt to each of the walk's threads
	// per page.
	clear(s.slots)
	s.n = 0
	for i := 0; i+2 < len(old); i += 3 {
		if old[i+2] != 0 {
			s.Add(old[i], old[i+1])
		}
	}
}

// Remove takes one (dev, ino) out of the set, if it is there: the slots
// after it in its run move back (no tombstones), so lookups stay O(1).
func (s *Idents) Remove(dev, ino uint64) {
	if len(s.slots) == 0 {
		return
	}
	m := uint64(len(s.slots)/3) - 1
	i := identHash(dev, ino) & m
	for {
		if s.slots[3*i+2] == 0 {
			return
		}
		if s.slots[3*i] == dev && s.slots[3*i+1] == ino {
			break
		}
		i = (i + 1) & m
	}
	for j := (i + 1) & m; s.slots[3*j+2] != 0; j = (j + 1) & m {
		// The key at j may move to the hole at i unless its home lies
		// cyclically in (i, j].
		k := identHash(s.slots[3*j], s.slots[3*j+1]) & m
		if i <= j && (k <= i || k > j) || i > j && k <= i && k > j {
			copy(s.slots[3*i:3*i+3], s.slots[3*j:3*j+3])
			i = j
		}
	}
	s.slots[3*i], s.slots[3*i+1], s.slots[3*i+2] = 0, 0, 0
	s.n--
}

// Clear empties the set, keeping its table.
func (s *Idents) Clear() {
	if s.n > 0 {
		clear(s.slots)
		s.n = 0
	}
}
