package walk

// With an ordered stream the shared stack is a heap, and a worker takes
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

// heapPush adds d to the stack kept as a heap in du's order. The caller
// holds stackMu.
func (sc *scan) heapPush(d *dir) {
	s := append(sc.stack, d)
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if !before(s[i], s[p]) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
	sc.stack = s
}

// heapPop takes the first directory in du's order. The caller holds
// stackMu; the stack is not empty.
func (sc *scan) heapPop() *dir {
	s := sc.stack
	d := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s[n] = nil
	s = s[:n]
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < n && before(s[l], s[m]) {
			m = l
		}
		if l+1 < n && before(s[l+1], s[m]) {
			m = l + 1
		}
		if m == i {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	sc.stack = s
	return d
}
