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
func before(a, b *dir) bool {
	x, y := a, b
	for x.depth > y.depth {
		x = x.parent
	}
	for y.depth > x.depth {
		y = y.parent
	}
	if x == y { // one is below the other
		return a.depth < b.depth
	}
	for x.parent != y.parent {
		x, y = x.parent, y.parent
	}
	return x.name < y.name
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
