package walk

import (
	"math"
	"syscall"

	"github.com/godu-sh/godu/internal/bulk"
	"github.com/godu-sh/godu/internal/sys"
)

// readSubtrees reads the subtree below d through the core's subtree walk,
// from the subdirectories addBatch listed, and adds what it read to d. Read
// directories that are reported get their Nodes here, complete. It
// returns the directories the walk left unread, below new directories
// standing for the read ones on their way (their descriptors closed, to
// be reopened on demand like shed ones; they complete when what is below
// them does); how many of both are d's own subdirectories (d's pending
// claims); and how many of those are left ones (its descriptor's claims:
// only those open themselves relative to it). A left directory the walk
// opened and ended at (too big for it, say) is not among left but among
// nexts, with its descriptor (rewound): the caller visits it right away,
// from that descriptor, and never opens it again; it is counted as a left
// one. A walk hands over one, or with helpers (bulk.Reader.Help) up to one
// per reader; nexts is wk's, valid until its next walk.
//
// With mixed, while a worker is idle, the walk ends at a directory of a
// few subdirectories among many files, handed on in nexts: visited here,
// it passes its subdirectories on before its files are examined
// (passMixed).
func (sc *scan) readSubtrees(wk *worker, d *dir, mixed bool) (left []*dir, nexts []handed, direct, directLeft int) {
	nexts = wk.nexts[:0]
	mode := sc.subtreeMode
	if mixed && sc.idle() {
		mode |= bulk.TreeHandMixed
	}
	t := wk.rd.Tree(d.fd.Fd(), sc.rootDev, wk.anc.at(d), sc.subtreeBudget(), mode, &sc.live)
	wk.dirs.Add(int64(t.Dirs))
	sc.opened(int32(t.Dirs))
	wk.files.Add(int64(t.Files))
	wk.blocks.Add(t.Sum.Blocks)

	nodes := t.Nodes
	n := len(nodes)
	if cap(wk.kids) < n {
		wk.kids = make([]int32, n)
		wk.leftKids = make([]int32, n)
		wk.tdirs = make([]*dir, n)
		wk.sub = make([]Totals, n)
	}
	kids, leftKids, dirs, sub := wk.kids[:n], wk.leftKids[:n], wk.tdirs[:n], wk.sub[:n]
	clear(kids)
	clear(leftKids)
	for i := range sub {
		sub[i] = Totals{Time: NoTime}
	}
	// own is what a read node holds itself: its entry and its files.
	own := func(nd *bulk.TreeNode) Totals {
		rec := nd.Record()
		o := entryTotals(&rec)
		o.Add(Totals{Blocks: nd.FBlocks, Bytes: nd.FSize, Inodes: int64(nd.Files), Time: NoTime})
		if nd.FTsec != math.MinInt64 { // bulk: no time, in seconds
			o.Time = max(o.Time, nd.FTsec*1e9+nd.FTnsec)
		}
		return o
	}
	// Nodes come after the node they were found in. From the last:
	// kids[i] counts the directories right below node i that stand in
	// the walk (left ones, or read ones above left ones), leftKids[i] the
	// left ones among them, and sub[i] sums node i and the read subtrees
	// below it that stand for nothing.
	dsub := Totals{Time: NoTime}
	for i := n - 1; i >= 0; i-- {
		nd := &nodes[i]
		standing := nd.Done == 0 || kids[i] > 0
		if nd.Done != 0 {
			sub[i].Add(own(nd))
		}
		switch {
		case standing && nd.Parent >= 0:
			kids[nd.Parent]++
			if nd.Done == 0 {
				leftKids[nd.Parent]++
			}
		case standing:
			direct++
			if nd.Done == 0 {
				directLeft++
			}
		case nd.Parent >= 0:
			sub[nd.Parent].Add(sub[i])
		default:
			dsub.Add(sub[i])
		}
	}
	d.sub.add(dsub)

	var done []int // read, reported and standing for nothing: complete here
	for i := range nodes {
		nd := &nodes[i]
		p := d
		if nd.Parent >= 0 {
			p = dirs[nd.Parent]
		}
		if p == nil { // below a read directory neither reported nor standing
			if nd.Done == 0 && nd.Fd >= 0 { // (never: a left one's parent stands)
				sys.Close(int(nd.Fd))
			}
			continue
		}
		depth := p.depth + 1
		standing := nd.Done == 0 || kids[i] > 0
		if !standing && !sc.reported(depth) {
			continue
		}
		name := string(t.NodeName(nd))
		var c *dir
		switch {
		case nd.Done == 0:
			rec := nd.Record()
			c = newDir(p, name, depth, &rec)
			if nd.Fd >= 0 { // open already: visited next, from it
				nexts = append(nexts, handed{c, int(nd.Fd)})
			} else {
				c.openErr = syscall.Errno(nd.Err) // (0: never tried, or tried out of descriptors)
				left = append(left, c)
			}
		case standing:
			c = &dir{parent: p, name: name, depth: depth, dev: nd.Dev, ino: nd.Ino, pending: kids[i]}
			c.inherit()
			c.sub.set(sub[i])
			c.own.set(own(nd))
			c.fd = new(descriptor)
			c.fd.hold(leftKids[i])
			if nd.Fd >= 0 { // its left subdirectories open from it
				c.fd.OpenFd(int(nd.Fd), sc.mode, nd.Dev)
			}
		default:
			c = &dir{parent: p, name: name, depth: depth, dev: nd.Dev, ino: nd.Ino}
			c.inherit()
			done = append(done, i)
		}
		if sc.reported(depth) {
			c.node = &Node{Name: name, IsDir: true, Type: bulk.Directory, Dev: nd.Dev, Ino: nd.Ino}
			if !standing {
				c.node.Totals, c.node.Own = sub[i], own(nd)
			}
			switch {
			case sc.em != nil:
				sc.streamSubdir(p, c)
			case !standing:
				p.mu.Lock()
				p.node.Children = append(p.node.Children, c.node)
				p.mu.Unlock()
			}
		}
		dirs[i] = c
	}
	// Complete nodes, children before parents as OnNode has them.
	for k := len(done) - 1; k >= 0; k-- {
		c := dirs[done[k]]
		c.node.sortChildren()
		if sc.w.opts.OnNode != nil {
			sc.w.emit(c.path(), c.node)
		}
	}
	if len(t.Links.Records) > 0 {
		switch {
		case sc.linksNow:
			sc.countTreeLinks(wk, d, &t)
		case sc.em != nil:
			sc.streamTreeLinks(wk, d, &t, dirs)
		default:
			sc.claimTree(wk, d, &t, dirs)
		}
	}
	if sc.em != nil {
		for i, c := range dirs { // read here: listed (left ones when visited)
			if c != nil && c.node != nil && nodes[i].Done != 0 {
				sc.streamListed(c)
			}
		}
		for _, i := range done {
			sc.streamComplete(dirs[i])
		}
	}
	clear(dirs)
	wk.nexts = nexts[:0]
	return left, nexts, direct, directLeft
}

// countTreeLinks counts, with linksNow, each file the links a subtree
// walk met lead to unless it was counted already, in d's subtree. The
// links come directory by directory, their inode numbers mostly in runs:
// one batch takes each shard's lock once per run.
func (sc *scan) countTreeLinks(wk *worker, d *dir, t *bulk.Tree) {
	sum := Totals{Time: NoTime}
	var skipped int64
	b := sc.w.set.Batch()
	for i := range t.Links.Records {
		rec := &t.Links.Records[i]
		if sc.w.seenIn(&b, rec) {
			skipped++
			continue
		}
		sum.Add(entryTotals(rec))
	}
	b.Done()
	wk.links.Add(skipped)
	d.sub.add(sum)
	wk.files.Add(sum.Inodes)
	wk.blocks.Add(sum.Blocks)
}

// claimTree claims the hard links a subtree walk met. A link in a
// directory that has a dir here is claimed for it; one deeper for a dir
// made for the directory right below the nearest that has one, and not
// reported: below it, which link is charged changes no reported figure,
// and the reported directory's own (du -S) figure leaves it out.
func (sc *scan) claimTree(wk *worker, d *dir, t *bulk.Tree, dirs []*dir) {
	holder := func(i int32) *dir {
		below := int32(-1)
		p := d
		for j := i; j >= 0; j = t.Nodes[j].Parent {
			if dirs[j] != nil {
				p = dirs[j]
				break
			}
			below = j
		}
		if below < 0 {
			return p
		}
		nd := &t.Nodes[below]
		c := &dir{parent: p, name: string(t.NodeName(nd)), depth: p.depth + 1, dev: nd.Dev, ino: nd.Ino}
		c.inherit()
		dirs[below] = c
		return c
	}
	var idx []int32
	var cur *dir
	for k, ni := range t.LinkNodes {
		h := holder(ni)
		if h != cur && len(idx) > 0 {
			sc.claim(wk, cur, &t.Links, idx)
			idx = idx[:0]
		}
		cur = h
		idx = append(idx, int32(k))
	}
	sc.claim(wk, cur, &t.Links, idx)
}

// subtreeBudget is how many entries one subtree walk may examine: few while
// the shared stack is short (other workers would wait for what the walk
// leaves), more as it fills.
func (sc *scan) subtreeBudget() int {
	sc.stackMu.Lock()
	n := len(sc.stack)
	sc.stackMu.Unlock()
	return subtreeBudgetMin << min(n, 4)
}
