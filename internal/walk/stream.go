package walk

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/godu-sh/godu/internal/bulk"
	"github.com/godu-sh/godu/internal/inodeset"
)

// An ordered stream (Options.Stream) hands out the reported entries in
// du's order, children before their directory and siblings by name, each
// as soon as its subtree is complete and every entry before it has been
// handed out; nothing is kept once it has been.
//
// Each reported directory lists its reported children once it is read
// (listed), sorted by name: listed files packed (packed.go: name and
// figures as varints, about 16 bytes a file), subdirectories, and hard
// links. An emitter walks these lists in order, merging the three by name:
// it hands out a file at once, enters a subdirectory once it is listed,
// and hands out a directory once it is complete and all its children have
// gone. Whatever is complete ahead of the emitter waits in the lists;
// past heldBudget bytes of it, workers run the emitter before they read
// another directory (Walker's scheduler meanwhile takes directories in
// du's order, order.go), so what waits stays about bounded.
//
// Hard-linked files are charged as the emitter meets them: the first link
// in du's order counts, as when the walk charges them afterwards, but
// without a table of every linked file met. A directory whose children
// are reported holds its links among its children, by name; one whose
// children are not (at the -d limit) holds those of its whole subtree and
// charges them once complete. A link below its children is named by the
// child it is found under (marked below): which of two links under one
// child counts changes no reported figure, so that name is all du's order
// needs (a link right in the directory, under another name, comes before
// or after the whole child), and a link is handed to its holder at once,
// whatever its depth.

// heldBudget is how many bytes of listed files and links may wait ahead
// of the emitter before workers help it.
const heldBudget = 1 << 20

// streamDir is what a stream keeps of a directory until it is handed out.
type streamDir struct {
	files   packed // listed files (packed.go), sorted by name once listed
	subdirs []*dir // reported subdirectories, sorted once listed
	links   []link // links among the children, sorted once listed
	deep    []link // links charged once complete
	si, li  int    // the emitter's next subdirectory and link
	merging bool   // the emitter has started merging the files' runs
	decided bool   // an ordered walk's emitter has decided the directory

	listed   atomic.Bool
	complete atomic.Bool
	skipped  atomic.Bool // left out after all (a mount point under -x)
	// Links charged by the emitter below and in the directory, and those
	// of them directly in it (du -S); the emitter's alone.
	extra, extraOwn Totals
}

// link is a hard-linked file met in the walk. name is its name in the
// directory holding it, or (below) the name of the child it is under.
type link struct {
	name   string
	below  bool
	key    inodeset.Key
	t      Totals
	nlink  uint32
	notReg bool // neither a regular file nor a directory (Details)
	// err: in an ordered walk, an entry that could not be examined,
	// reported when the emitter comes to it, in du's order.
	err *Error
}

// Detail is what Options.Details adds to a streamed Node.
type Detail struct {
	Self      Totals // the entry alone: a directory without its contents
	Dev       uint64 // a directory's device
	Ino       uint64 // a hard-linked file's inode number
	Nlink     uint32 // and its link count
	NotReg    bool   // neither a regular file nor a directory
	ReadError bool   // could not be read (a directory) or examined
	// Excluded is "pattern" for an entry left out by Options.Exclude,
	// "otherfs" for one on another file system with OneFileSystem.
	Excluded  string
	Uncounted bool // a further link to a file counted at an earlier one
}

// stream returns d's stream state, made on first use.
func (d *dir) stream() *streamDir {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.st == nil {
		d.st = &streamDir{}
	}
	return d.st
}

// streamFile lists a file of reported d.
func (sc *scan) streamFile(d *dir, name []byte, t Totals, flags uint8) {
	st := d.stream()
	d.mu.Lock()
	withTime := sc.w.opts.Time != 0
	size := int64(st.files.add(&sc.em.pool, name, t, withTime, flags))
	if st.files.inMemory > spillAt {
		size -= int64(st.files.alloc)
		st.files.spill(&sc.em.spill, &sc.em.pool, withTime)
		size += int64(st.files.alloc)
	}
	d.mu.Unlock()
	sc.em.held.Add(size)
}

// streamLeftOut lists, with Options.Details, an entry of d that is not
// counted: left out (flagPattern, flagOtherFS) or not examined.
func (sc *scan) streamLeftOut(d *dir, name []byte, flag uint8) {
	if d.node != nil && sc.em != nil {
		sc.streamFile(d, name, Totals{}, flag)
	}
}

// streamSubdir lists reported subdirectory c of d, not yet shared. In an
// ordered walk c then waits for its decision too (its pending count), and
// is not listed, reporting false, when d is known not to count.
func (sc *scan) streamSubdir(d, c *dir) bool {
	c.stream()
	st := d.stream()
	d.mu.Lock()
	defer d.mu.Unlock()
	if sc.ordered {
		if st.skipped.Load() {
			return false
		}
		c.pending++
	}
	st.subdirs = append(st.subdirs, c)
	return true
}

// decide is an ordered walk's emitter meeting subdirectory c in du's
// order: every path before it has been decided, so c is the first path to
// its directory unless that was counted already (with -l, every path
// counts). Either way c may then complete.
func (sc *scan) decide(c *dir) {
	st := c.st
	if st.decided {
		return
	}
	st.decided = true
	if !st.skipped.Load() && !sc.w.opts.CountLinks && !sc.w.add(inodeset.Key{Dev: c.dev, Ino: c.ino}) {
		sc.drop(c)
	}
	sc.partDone(c)
}

// drop marks c, and every directory listed below it, as not counted:
// their figures do not reach their parents, their errors are never
// reported, and those not yet read are not read. The emitter never
// enters them, so it decides those below here.
func (sc *scan) drop(c *dir) {
	c.mu.Lock()
	c.st.skipped.Store(true)
	subs := append([]*dir(nil), c.st.subdirs...)
	c.errs, c.late = nil, nil
	c.mu.Unlock()
	for _, s := range subs {
		if !s.st.decided {
			s.st.decided = true
			sc.drop(s)
			sc.partDone(s)
		}
	}
}

// streamLink takes a hard link found in d: among d's children when they
// are reported, else held to be charged when d completes.
func (sc *scan) streamLink(d *dir, l link) {
	if d.node == nil { // below the -d limit: to the reported directory above
		l.name, l.below = d.top.name, true
		d = d.top.parent
	}
	st := d.stream()
	d.mu.Lock()
	if (sc.ordered || sc.reported(d.depth+1)) && !l.below {
		st.links = append(st.links, l)
	} else {
		st.deep = append(st.deep, l)
	}
	d.mu.Unlock()
	sc.em.held.Add(l.size())
}

// size is about what l takes in memory, for the held budget.
func (l *link) size() int64 { return int64(unsafe.Sizeof(*l)) + int64(len(l.name)) }

// streamLinks takes the hard links among b's records (indices in links),
// found in d.
func (sc *scan) streamLinks(d *dir, b *bulk.Batch, links []int32) {
	for _, i := range links {
		rec := &b.Records[i]
		sc.streamLink(d, link{name: string(b.Name(rec)), key: inodeset.Key{Dev: rec.Dev, Ino: rec.Ino}, t: entryTotals(rec), nlink: rec.Nlink,
			notReg: rec.Type != bulk.Regular})
	}
}

// streamTreeLinks takes the links a subtree walk met: each goes to the
// nearest directory of the walk that has a dir (dirs, by node), named by
// the node right below that directory it is under when it is deeper. A
// pass over the nodes, parents first, finds both for every node in O(1)
// each, whatever the depth.
func (sc *scan) streamTreeLinks(wk *worker, d *dir, t *bulk.Tree, dirs []*dir) {
	n := len(t.Nodes)
	if cap(wk.holder) < n {
		wk.holder = make([]*dir, n)
		wk.under = make([]int32, n)
	}
	holder, under := wk.holder[:n], wk.under[:n]
	for j := range t.Nodes {
		nd := &t.Nodes[j]
		switch {
		case dirs[j] != nil:
			holder[j], under[j] = dirs[j], -1
		case nd.Parent < 0:
			holder[j], under[j] = d, int32(j)
		default:
			holder[j], under[j] = holder[nd.Parent], under[nd.Parent]
			if under[j] < 0 {
				under[j] = int32(j)
			}
		}
	}
	for k, ni := range t.LinkNodes {
		rec := &t.Links.Records[k]
		l := link{key: inodeset.Key{Dev: rec.Dev, Ino: rec.Ino}, t: entryTotals(rec), nlink: rec.Nlink}
		if u := under[ni]; u >= 0 {
			l.name, l.below = string(t.NodeName(&t.Nodes[u])), true
		} else {
			l.name = string(t.Links.Name(rec))
		}
		sc.streamLink(holder[ni], l)
	}
	clear(holder) // keeps no directory alive
}

// streamListed marks reported d as listed: its children are all known.
func (sc *scan) streamListed(d *dir) {
	st := d.stream()
	d.mu.Lock()
	st.files.sort()
	// Names are unique among siblings: no order to keep among equals.
	slices.SortFunc(st.subdirs, func(a, b *dir) int { return strings.Compare(a.name, b.name) })
	slices.SortFunc(st.links, func(a, b link) int { return strings.Compare(a.name, b.name) })
	d.mu.Unlock()
	st.listed.Store(true)
	sc.em.kick()
}

// streamComplete marks reported d complete (its Node's figures set).
// (An unreported one holds no links: streamLink hands them above.)
func (sc *scan) streamComplete(d *dir) {
	if d.node != nil {
		d.stream().complete.Store(true)
		sc.em.kick()
	}
}

// emitter hands out entries in order (see above). One goroutine at a
// time advances it; others only mark it dirty.
type emitter struct {
	sc    *scan
	mu    sync.Mutex
	dirty atomic.Bool
	held  atomic.Int64 // bytes of listed files and links not handed out
	stack []frame      // the directories entered, the root first
	file  Node         // the Node handed out for a file
	path  []byte       // and its path (Options.Stream: valid during the call)
	dirs  []byte       // the stack's paths (frame)
	spill spillFile    // spill.go
	pool  packedPool   // packed.go
}

// filePath is Join(dir, name) in e.path, reused: a file handed out costs
// no allocation. The name is the path's end.
func (e *emitter) filePath(dir []byte, name []byte) (path, base string) {
	b := append(e.path[:0], dir...)
	if len(dir) == 0 || dir[len(dir)-1] != '/' {
		b = append(b, '/')
	}
	at := len(b)
	b = append(b, name...)
	e.path = b
	path = unsafe.String(unsafe.SliceData(b), len(b))
	return path, path[at:]
}

// spillFailed reports that the spill file could not be read back: the
// files of a run are missing from the output.
func (e *emitter) spillFailed(err error) {
	e.sc.w.fail("read", "(temporary file)", err)
}

// A frame's path is dirs[:end] of its emitter's: the stack's paths share
// one buffer, each the one above it plus a name, as in du's own path
// buffer (a string each cost O(depth²) bytes held on a deep chain).
type frame struct {
	d       *dir
	end     int
	entered bool // OnEnter has had it
}

// kick advances the emitter unless another goroutine is at it, which will
// then advance it again.
func (e *emitter) kick() {
	e.dirty.Store(true)
	for e.dirty.Load() && e.mu.TryLock() {
		e.dirty.Store(false)
		e.advance()
		e.mu.Unlock()
	}
}

// help advances the emitter, waiting for it if need be, when more than
// heldBudget waits: a worker calls it before it reads a directory.
func (e *emitter) help() {
	if e.held.Load() <= heldBudget {
		return
	}
	e.mu.Lock()
	e.dirty.Store(false)
	e.advance()
	e.mu.Unlock()
	e.kick() // kicks that came meanwhile
}

// dirPath is f's path, for the length of a call (it aliases e.dirs).
func (e *emitter) dirPath(f *frame) string {
	return unsafe.String(unsafe.SliceData(e.dirs), f.end)
}

// push enters c, a subdirectory of the top frame's directory.
func (e *emitter) push(c *dir) {
	b := e.dirs[:e.stack[len(e.stack)-1].end]
	if len(b) == 0 || b[len(b)-1] != '/' {
		b = append(b, '/')
	}
	e.dirs = append(b, c.name...)
	e.stack = append(e.stack, frame{d: c, end: len(e.dirs)})
}

func (e *emitter) advance() {
	opts := &e.sc.w.opts
	withTime := opts.Time != 0
	for len(e.stack) > 0 {
		f := &e.stack[len(e.stack)-1]
		st := f.d.st
		if !st.listed.Load() {
			return
		}
		if !f.entered {
			f.entered = true
			if f.d.empty && opts.FollowAll && f.end > 1 && e.dirs[f.end-1] == '/' {
				// du -L walks without changing directory, and fts then
				// names an empty directory by its path as given less the
				// '/' it ends with (the operand's only line).
				f.end--
				e.dirs = e.dirs[:f.end]
			}
			f.d.mu.Lock()
			errs := f.d.errs
			f.d.errs, f.d.entered = nil, true
			f.d.mu.Unlock()
			for i := range errs {
				e.sc.w.fail(errs[i].Op, errs[i].Path, errs[i].Err)
			}
			if opts.OnEnter != nil {
				opts.OnEnter(e.dirPath(f), f.d.node)
			}
		}
		if !st.merging {
			st.merging = true
			if err := st.files.startMerge(&e.spill, withTime); err != nil {
				e.spillFailed(err)
			}
		}
		// The next child by name: a file, a subdirectory or a link.
		var fname []byte
		var sname, lname string
		rec, src, hasF := st.files.head()
		hasS, hasL := st.si < len(st.subdirs), st.li < len(st.links)
		if hasF {
			fname = recordName(rec)
		}
		if hasS {
			sname = st.subdirs[st.si].name
		}
		if hasL {
			lname = st.links[st.li].name
		}
		switch {
		case hasF && (!hasS || string(fname) < sname) && (!hasL || string(fname) < lname):
			name, t, flags, _ := decodeRecord(rec, withTime)
			path, base := e.filePath(e.dirs[:f.end], name) // a copy: advance may reuse rec
			e.file = Node{Name: base, Totals: t, Own: t}
			if err := st.files.advance(src, withTime); err != nil {
				e.spillFailed(err)
			}
			if opts.Details {
				e.file.Detail = fileDetail(t, flags)
			}
			opts.Stream(path, &e.file)
			if _, _, more := st.files.head(); !more {
				e.held.Add(-int64(st.files.alloc))
				e.pool.put(&st.files)
				st.files = packed{}
			}
		case hasL && (!hasS || lname < sname):
			l := &st.links[st.li]
			st.li++
			if l.err != nil {
				e.held.Add(-l.size())
				e.sc.w.fail(l.err.Op, l.err.Path, l.err.Err)
				continue
			}
			counted := e.charge(st, l, !l.below)
			// Details lists every link to a hard-linked file; a file
			// with one link reached again (-L) is not listed again.
			if counted && opts.ListFiles && e.sc.reported(f.d.depth+1) || opts.Details && (counted || l.nlink > 1) {
				e.file = Node{Name: l.name, Totals: l.t, Own: l.t}
				if opts.Details {
					e.file.Detail = Detail{Self: l.t, Ino: l.key.Ino, Nlink: l.nlink, Uncounted: !counted, NotReg: l.notReg}
				}
				path, _ := e.filePath(e.dirs[:f.end], unsafe.Slice(unsafe.StringData(l.name), len(l.name)))
				opts.Stream(path, &e.file)
			}
		case hasS:
			c := st.subdirs[st.si]
			if e.sc.ordered {
				e.sc.decide(c)
			}
			if c.st.skipped.Load() {
				st.subdirs[st.si] = nil
				st.si++
				continue
			}
			if !c.st.listed.Load() {
				return
			}
			st.subdirs[st.si] = nil
			st.si++
			e.push(c)
		default:
			if !st.complete.Load() {
				return
			}
			slices.SortFunc(st.deep, func(a, b link) int { return strings.Compare(a.name, b.name) })
			for i := range st.deep {
				l := &st.deep[i]
				e.charge(st, l, !l.below)
			}
			f.d.mu.Lock()
			late := f.d.late
			f.d.late = nil
			f.d.mu.Unlock()
			slices.SortStableFunc(late, func(a, b Error) int { return comparePaths(a.Path, b.Path) })
			for i := range late {
				e.sc.w.fail(late[i].Op, late[i].Path, late[i].Err)
			}
			n := f.d.node
			n.Totals.addSum(st.extra)
			n.Own.addSum(st.extraOwn)
			if e.sc.reported(f.d.depth) {
				opts.Stream(e.dirPath(f), n)
			}
			e.stack = e.stack[:len(e.stack)-1]
			if len(e.stack) > 0 {
				e.stack[len(e.stack)-1].d.st.extra.addSum(st.extra)
			}
			st.subdirs, st.links, st.deep = nil, nil, nil
		}
	}
}

// charge counts l in st if it is the first link to its file met in du's
// order (and not counted under an earlier operand).
func (e *emitter) charge(st *streamDir, l *link, direct bool) bool {
	w := e.sc.w
	e.held.Add(-l.size())
	if !w.opts.CountLinks && !w.add(l.key) { // (every file of an ordered walk under -l counts)
		w.after.links.Add(1)
		return false
	}
	st.extra.addSum(l.t)
	if direct {
		st.extraOwn.addSum(l.t)
	}
	w.after.files.Add(1)
	w.after.blocks.Add(l.t.Blocks)
	return true
}

func fileDetail(t Totals, flags uint8) Detail {
	d := Detail{Self: t, NotReg: flags&flagNotReg != 0, ReadError: flags&flagReadError != 0}
	switch {
	case flags&flagPattern != 0:
		d.Excluded = "pattern"
	case flags&flagOtherFS != 0:
		d.Excluded = "otherfs"
	}
	return d
}

// comparePaths orders paths as the walk meets them: component by
// component, each by its bytes (a '/' sorts before every byte of a name).
func comparePaths(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		x, y := a[i], b[i]
		if x == y {
			continue
		}
		if x == '/' {
			return -1
		}
		if y == '/' {
			return 1
		}
		return int(x) - int(y)
	}
	return len(a) - len(b)
}
