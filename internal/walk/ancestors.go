package walk

import "github.com/godu-sh/godu/internal/bulk"

// ancestors is a worker's view of the directory it reads and those above
// it: the path from the operand (path[i] at depth i) and their identities
// in a hash (bulk.Idents), against which subdirectories are checked for a
// cycle in O(1), as fts checks against its hash of active directories;
// the subtree walk's core probes the same table. Moving to another
// directory changes only the part of the path that differs, so a walk
// that goes depth first pays O(1) per directory on any depth, where
// looking at every ancestor of every directory was quadratic on a chain.
type ancestors struct {
	path []*dir
	set  bulk.Idents
	tmp  []*dir
}

// at makes the view d's: d and every directory above it.
func (a *ancestors) at(d *dir) *bulk.Idents {
	if d.depth < len(a.path) && a.path[d.depth] == d && len(a.path) == d.depth+1 {
		return &a.set
	}
	// Up from d to the deepest directory already on the path.
	up := a.tmp[:0]
	x := d
	for x != nil && !(x.depth < len(a.path) && a.path[x.depth] == x) {
		up = append(up, x)
		x = x.parent
	}
	keep := 0
	if x != nil {
		keep = x.depth + 1
	}
	for i := len(a.path) - 1; i >= keep; i-- {
		a.set.Remove(a.path[i].dev, a.path[i].ino)
		a.path[i] = nil
	}
	a.path = a.path[:keep]
	for i := len(up) - 1; i >= 0; i-- {
		a.path = append(a.path, up[i])
		a.set.Add(up[i].dev, up[i].ino)
		up[i] = nil
	}
	a.tmp = up[:0]
	return &a.set
}

// reset forgets the path (between walks: nothing of one is kept alive).
func (a *ancestors) reset() {
	clear(a.path)
	a.path = a.path[:0]
	a.set.Clear()
}
