package walk

// With a stream where what is complete may wait on du's order (one that
// reports directories below the operand, or counts hard links in that
// order) the shared stack is a heap, and a worker takes
// the directory that comes first in du's order, not the one found last:
// the walk then finishes subtrees about in the order they are printed, so
// little that is complete waits for an earlier subtree (stream.go). A
// plain stack would bury an early directory's siblings under whatever
// other workers found meanwhile.

// before reports whether directory a comes before b in du's order: below
// their nearest common directory, the entry leading to a sorts before the
// one leading to b. An ancestor comes before what is below it.
//
// It climbs by jump pointers (dir.jump, jumpOf), in O(log depth) steps.
// Climbed one parent at a time, the heap's comparisons cost the distance
// between the directories, and a comb under -a (each level a tooth
// directory and the next level, which sorts first, so that every level's
// tooth waits in the heap while the chain below it is walked) took time
// quadratic in its depth: 8,000 levels, 2.4 s with one worker against
// 0.2 s for -s.
func before(a, b *dir) bool { return beforeCounting(a, b, nil) }

// beforeCounting is before, counting its steps up the tree in *steps
// (for tests; nil: not counted).
func beforeCounting(a, b *dir, steps *int) bool {
	x, y := meet(a, b, steps)
	if x == y { // one is below the other
		return a.depth < b.depth
	}
	return x.name < y.name
}

// meet returns the ancestors of a and b (or themselves) right below
// their nearest common directory, or that directory twice when one of
// them is it (at or above the other), counting its steps up the tree in
// *steps (nil: not counted). Two directories of different walks meet
// below no directory: x.parent and y.parent are both nil.
func meet(a, b *dir, steps *int) (x, y *dir) {
	x, y = climb(a, b.depth, steps), climb(b, a.depth, steps)
	if x == y {
		return x, y
	}
	// x and y are at one depth; a jump that leads them to two directories
	// keeps both below the common one.
	for x.parent != y.parent {
		if jx, jy := x.jump, y.jump; jx != jy && jx != nil && jy != nil && jx.depth == jy.depth {
			x, y = jx, jy
		} else {
			x, y = x.parent, y.parent
		}
		if steps != nil {
			*steps++
		}
	}
	return x, y
}

// climb returns d's ancestor at depth, or d when it is not deeper.
func climb(d *dir, depth int, steps *int) *dir {
	for d.depth > depth {
		if j := d.jump; j != nil && j.depth >= depth {
			d = j
		} else {
			d = d.parent
		}
		if steps != nil {
			*steps++
		}
	}
	return d
}

// jumpOf is the jump pointer of a directory made below p: p itself, or,
// where p's jump and its jump's jump span the same number of levels, the
// ancestor that jump's jump reaches (their two spans and one more). The
// spans so grow as skew-binary numbers do, and from any directory jumps,
// taken while they do not overshoot, and steps to parents reach an
// ancestor at a given depth in O(log depth) of them. A jump's target
// depth is a function of the depth alone: two directories at one depth
// jump to one depth.
func jumpOf(p *dir) *dir {
	if p == nil {
		return nil
	}
	if j := p.jump; j != nil && j.jump != nil && p.depth-j.depth == j.depth-j.jump.depth {
		return j.jump
	}
	return p
}

// heapKey is what the heap compares first, kept beside each directory
// (scan.keys): its parent, and the first 8 bytes of its name, big-endian
// and padded with zeros, which order as the names do where they differ.
// Siblings, nearly all a heap holds, then compare without a visit to
// either dir: a heap of 100,000 siblings costs no cache miss per step.
type heapKey struct {
	parent *dir
	pre    uint64
}

func keyOf(d *dir) heapKey {
	var pre uint64
	for i := 0; i < 8; i++ {
		pre <<= 8
		if i < len(d.name) {
			pre |= uint64(d.name[i])
		}
	}
	return heapKey{d.parent, pre}
}

// heapBefore is before(s[i], s[j]) for the heap's entries i and j.
func (sc *scan) heapBefore(i, j int) bool {
	ki, kj := &sc.keys[i], &sc.keys[j]
	if ki.parent == kj.parent && ki.pre != kj.pre {
		return ki.pre < kj.pre
	}
	return before(sc.stack[i], sc.stack[j])
}

func (sc *scan) heapSwap(i, j int) {
	sc.stack[i], sc.stack[j] = sc.stack[j], sc.stack[i]
	sc.keys[i], sc.keys[j] = sc.keys[j], sc.keys[i]
}

// heapPush adds d to the stack kept as a heap in du's order. The caller
// holds stackMu.
func (sc *scan) heapPush(d *dir) {
	sc.stack = append(sc.stack, d)
	sc.keys = append(sc.keys, keyOf(d))
	for i := len(sc.stack) - 1; i > 0; {
		p := (i - 1) / 2
		if !sc.heapBefore(i, p) {
			break
		}
		sc.heapSwap(i, p)
		i = p
	}
}

// heapPop takes the first directory in du's order. The caller holds
// stackMu; the stack is not empty.
func (sc *scan) heapPop() *dir {
	d := sc.stack[0]
	n := len(sc.stack) - 1
	sc.heapSwap(0, n)
	sc.stack[n] = nil
	sc.keys[n] = heapKey{}
	sc.stack, sc.keys = sc.stack[:n], sc.keys[:n]
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < n && sc.heapBefore(l, m) {
			m = l
		}
		if l+1 < n && sc.heapBefore(l+1, m) {
			m = l + 1
		}
		if m == i {
			break
		}
		sc.heapSwap(i, m)
		i = m
	}
	return d
}
