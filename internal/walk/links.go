package walk

import (
	"slices"

	"github.com/godu-sh/godu/internal/bulk"
	"github.com/godu-sh/godu/internal/inodeset"
)

// seen reports whether the entry was counted before and must be skipped,
// recording it otherwise (du's hard-link rule).
func (w *Walker) seen(r *bulk.Record) bool {
	return w.hashed(r) && !w.add(inodeset.Key{Dev: r.Dev, Ino: r.Ino})
}

// seenIn is seen adding to the set through b (see inodeset.Batch: the
// caller does nothing else with the set until b.Done).
func (w *Walker) seenIn(b *inodeset.Batch, r *bulk.Record) bool {
	if !w.hashed(r) {
		return false
	}
	w.useSet()
	return !b.Add(inodeset.Key{Dev: r.Dev, Ino: r.Ino})
}

// hashed reports whether r goes through the hard-link set.
func (w *Walker) hashed(r *bulk.Record) bool {
	if w.opts.CountLinks {
		return false
	}
	isDir := r.Type == bulk.Directory
	if !w.opts.HashAll && (isDir || r.Nlink <= 1) {
		return false
	}
	if w.opts.HashAll && !isDir && r.Nlink <= 1 && !w.checkAll.Load() {
		// A file with one link sits in one directory, reached at most
		// once unless it was itself an operand (which sets checkAll).
		return false
	}
	return true
}

// add puts k in the hard-link set, reporting whether it was absent.
func (w *Walker) add(k inodeset.Key) bool {
	w.useSet()
	return w.set.Add(k)
}

// useSet records that the hard-link set holds keys (setUsed), storing
// only the first time: a store per key would bounce the line between
// workers.
func (w *Walker) useSet() {
	if !w.setUsed.Load() {
		w.setUsed.Store(true)
	}
}

// linkClaim is the link a hard-linked file is charged to: the first in
// du's traversal order with each directory's entries sorted by name,
// whichever order the workers met the links in, so that every run
// charges the same directory and lists the same link.
type linkClaim struct {
	dir  *dir
	name string
	t    Totals
	typ  bulk.Type
}

// linkTable maps hard-linked files to their claims. Files on the walk's
// own device are keyed by inode number alone (Go hashes one word in a
// quarter of the time of two); files on other devices by (device, inode).
type linkTable struct {
	dev   uint64
	m     map[uint64]*linkClaim
	other map[inodeset.Key]*linkClaim
}

func (t *linkTable) get(k inodeset.Key) *linkClaim {
	if k.Dev == t.dev {
		return t.m[k.Ino]
	}
	return t.other[k]
}

func (t *linkTable) put(k inodeset.Key, c *linkClaim) {
	if k.Dev == t.dev {
		if t.m == nil {
			t.m = map[uint64]*linkClaim{}
		}
		t.m[k.Ino] = c
		return
	}
	if t.other == nil {
		t.other = map[inodeset.Key]*linkClaim{}
	}
	t.other[k] = c
}

func (t *linkTable) each(fn func(inodeset.Key, *linkClaim)) {
	for ino, c := range t.m {
		fn(inodeset.Key{Dev: t.dev, Ino: ino}, c)
	}
	for k, c := range t.other {
		fn(k, c)
	}
}

// after reports whether c comes after link (d, name) in traversal order:
// below their nearest common directory, compare the names of the entries
// that lead to each. It climbs as before does (jump pointers, O(log
// depth) steps), where it climbed one parent at a time.
func (c *linkClaim) after(d *dir, name []byte) bool {
	switch {
	case d == c.dir:
		return string(name) < c.name
	case d.depth > c.dir.depth:
		if a := climb(d, c.dir.depth+1, nil); a.parent == c.dir {
			return a.name < c.name
		}
	case c.dir.depth > d.depth:
		if a := climb(c.dir, d.depth+1, nil); a.parent == d {
			return string(name) < a.name
		}
	}
	return before(d, c.dir) // neither directory holds the other
}

// claim offers the links to hard-linked files among b's records (indices
// in b.Records), found in d; the walk charges each file to the first of its
// links in traversal order once it is over. A file counted under an earlier
// operand is skipped. One lock per batch: workers finding links at once
// contend on it per directory, not per link.
func (sc *scan) claim(wk *worker, d *dir, b *bulk.Batch, links []int32) {
	counted := sc.w.setUsed.Load()
	skipped := int64(0)
	sc.linkMu.Lock()
	for _, i := range links {
		rec := &b.Records[i]
		k := inodeset.Key{Dev: rec.Dev, Ino: rec.Ino}
		if counted && sc.w.set.Contains(k) {
			skipped++
			continue
		}
		name := b.Name(rec)
		c := sc.links.get(k)
		switch {
		case c == nil:
			sc.links.put(k, &linkClaim{dir: d, name: string(name), t: entryTotals(rec), typ: rec.Type})
			continue
		case c.after(d, name):
			c.dir, c.name = d, string(name)
		}
		skipped++
	}
	sc.linkMu.Unlock()
	wk.links.Add(skipped)
}

// chargeLinks adds each hard-linked file to the directory of its first
// link and to every reported directory above it, after the walk. Each
// directory on the way is visited once, however many links are below
// it: the links' sums are added up level by level from the deepest (a
// walk up from every link cost O(depth) each, quadratic on a chain).
func (sc *scan) chargeLinks() {
	resort := map[*Node]bool{}
	var files, blocks int64
	// up holds, for the directories with links at or below them, the sum
	// not yet added to the directory's Node and its parent.
	up := map[*dir]*Totals{}
	// Out: below a directory left out (a mount point under -x).
	out := map[*dir]bool{}
	outAt := func(d *dir) bool {
		var path []*dir
		found := false
		for ; d != nil; d = d.parent {
			if v, ok := out[d]; ok {
				found = v
				break
			}
			path = append(path, d)
			if d.skipped {
				found = true
			}
		}
		for i := len(path) - 1; i >= 0; i-- {
			found = found || path[i].skipped
			out[path[i]] = found
		}
		return found
	}
	sc.links.each(func(k inodeset.Key, c *linkClaim) {
		sc.w.add(k) // later operands count it no more
		if outAt(c.dir) {
			return
		}
		for d := c.dir; d != nil; d = d.parent {
			if t, ok := up[d]; ok {
				if d == c.dir {
					t.Add(c.t)
				}
				break
			}
			t := Totals{Time: NoTime}
			if d == c.dir {
				t = c.t
			}
			up[d] = &t
		}
		files++
		blocks += c.t.Blocks
		n := c.dir.node
		if n == nil {
			return
		}
		n.Own.Add(c.t)
		if sc.w.opts.ListFiles && sc.reported(c.dir.depth+1) {
			n.Children = append(n.Children, &Node{Name: c.name, Totals: c.t, Own: c.t, Type: c.typ, Dev: k.Dev, Ino: k.Ino})
			resort[n] = true
		}
	})
	dirs := make([]*dir, 0, len(up))
	for d := range up {
		dirs = append(dirs, d)
	}
	slices.SortFunc(dirs, func(a, b *dir) int { return b.depth - a.depth })
	for _, d := range dirs {
		t := up[d]
		if d.node != nil {
			d.node.Totals.Add(*t)
		}
		if d.parent != nil {
			up[d.parent].Add(*t)
		}
	}
	sc.w.after.files.Add(files)
	sc.w.after.blocks.Add(blocks)
	for n := range resort {
		n.sortChildren()
	}
}
