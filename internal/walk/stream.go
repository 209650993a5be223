package walk

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/godu-sh/godu/internal/bulk"
	"github.com/godu-sh/godu/internal/inodeset"
	"github.com/godu-sh/godu/internal/sys"
)

// An ordered stream (Options.Stream) hands out the reported entries in
// du's order, children before their directory and siblings by name, each
// as soon as its subtree is complete and every entry before it has been
// handed out; nothing is kept once it has been.
//
// Each reported directory lists its reported children once it is read
// (listed), sorted by name: listed files and hard links packed (packed.go:
// name and figures as varints, about 16 bytes a file, 25 a link),
// subdirectories, and the entries that could not be examined, reported
// in du's order. An emitter walks these lists in order, merging them by
// name:
// it hands out a file at once, enters a subdirectory once it is listed,
// and hands out a directory once it is complete and all its children have
// gone. Whatever is complete ahead of the emitter waits in the lists;
// past heldBudget bytes of it, workers run the emitter before they read
// another directory (Walker's scheduler meanwhile takes directories in
// du's order, order.go), and, while the emitter waits on a directory,
// read only what it waits on (emitter.holdsBack): what waits stays about
// bounded. A directory's list past spillAt bytes goes to the spill file.
//
// Hard-linked files are charged as the emitter meets them: the first link
// in du's order counts, as when the walk charges them afterwards, but
// without a table of every linked file met. A directory whose children
// are reported holds its links among its children, by name; one whose
// children are not (at the -d limit) holds those of its whole subtree
// (deep) and charges them once complete. A link below its children is
// named by the child it is found under (flagBelow): which of two links under one
// child counts changes no reported figure, so that name is all du's order
// needs (a link right in the directory, under another name, comes before
// or after the whole child), and a link is handed to its holder at once,
// whatever its depth.

// heldBudget is how many bytes of listed files and links may wait ahead
// of the emitter before workers help it (a variable for tests).
var heldBudget int64 = 8 << 20

// streamDir is what a stream keeps of a directory until it is handed out.
type streamDir struct {
	files   packed     // listed files and links (packed.go), sorted by name once listed
	subdirs []*dir     // reported subdirectories, sorted once listed
	errs    []entryErr // children not examined, sorted once listed
	deep    *packed    // links charged once complete (nil: none)
	si, ei  int        // the emitter's next subdirectory and error
	merging bool       // the emitter has started merging the files' runs
	// examined: an entry was listed that was examined (a file, a link, a
	// subdirectory; not one left out), which a directory without search
	// permission never has (Detail.Unsearchable).
	examined bool

	// Links charged by the emitter below and in the directory, and those
	// of them directly in it (du -S); the emitter's alone.
	extra, extraOwn Totals
}

// entryErr is an entry that could not be examined, reported when the
// emitter comes to it, in du's order.
type entryErr struct {
	name string
	err  Error
}

// Detail is what Options.Details adds to a streamed Node.
type Detail struct {
	Self      Totals // the entry alone: a directory without its contents
	Dev       uint64 // a directory's device
	Ino       uint64 // a hard-linked file's inode number
	Nlink     uint32 // and its link count
	NotReg    bool   // neither a regular file nor a directory
	ReadError bool   // could not be read (a directory) or examined
	// Unsearchable: a directory listed whose entries, one or more, could
	// not be examined, each for want of permission (EACCES), and none was:
	// it can be read but not searched. ncdu, which cannot enter it,
	// exports it marked, without entries. Given when it is entered; never
	// under FollowAll, where an entry's EACCES may be its symlink's
	// target's, in a directory searched all the same.
	Unsearchable bool
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

// deniedAll reports whether errs, a directory's entries not examined, are
// one or more, each for want of permission.
func deniedAll(errs []entryErr) bool {
	for i := range errs {
		if !errors.Is(errs[i].err.Err, sys.EACCES) {
			return false
		}
	}
	return len(errs) > 0
}

// streamFile lists a file of reported d.
func (sc *scan) streamFile(d *dir, name []byte, t Totals, flags uint8, rec *bulk.Record) {
	sc.pack(d, false, name, t, flags, nil, rec)
}

// pack adds a file, or a link (id), to d's files or, deep, its deep
// links, spilling them past spillAt. With Options.FileIDs the record
// keeps the identity of rec, the file's (nil: none, an entry left out).
func (sc *scan) pack(d *dir, deep bool, name []byte, t Totals, flags uint8, id *linkID, rec *bulk.Record) {
	if rec != nil && sc.w.opts.FileIDs && flags&flagBelow == 0 {
		flags |= flagID
	}
	st := d.stream()
	withTime := sc.w.opts.Time != 0
	d.mu.Lock()
	p := &st.files
	if deep {
		if st.deep == nil {
			st.deep = &packed{}
		}
		p = st.deep
	}
	if !deep && flags&flagLeftOut == 0 {
		st.examined = true
	}
	var size int
	if id != nil {
		size = p.addLink(&sc.em.pool, name, t, withTime, flags, *id)
	} else {
		size = p.add(&sc.em.pool, name, t, withTime, flags)
	}
	if flags&flagID != 0 {
		p.addIdent(fileIdent{rec.Type, rec.Dev, rec.Ino})
	}
	if p.inMemory > spillAt {
		size -= p.alloc
		p.spill(&sc.em.spill, &sc.em.pool, withTime)
		size += p.alloc
	}
	d.mu.Unlock()
	sc.em.held.Add(int64(size))
}

// streamLeftOut lists, with Options.Details, an entry of d that is not
// counted: left out (flagPattern, flagOtherFS) or not examined.
func (sc *scan) streamLeftOut(d *dir, name []byte, flag uint8) {
	if d.node != nil && sc.em != nil {
		sc.streamFile(d, name, Totals{}, flag, nil)
	}
}

// streamSubdir lists reported subdirectory c of d, not yet shared. In an
// ordered walk c then waits for its decision too (its pending count), and
// is not listed, reporting false, when d is known not to count.
func (sc *scan) streamSubdir(d, c *dir) bool {
	st := d.stream()
	d.mu.Lock()
	defer d.mu.Unlock()
	if sc.ordered {
		if d.left.Load() {
			return false
		}
		c.pending++
	}
	st.subdirs = append(st.subdirs, c)
	st.examined = true
	return true
}

// decide is an ordered walk's emitter meeting subdirectory c in du's
// order: every path before it has been decided, so c is the first path to
// its directory unless that was counted already (with -l, every path
// counts). Either way c may then complete.
func (sc *scan) decide(c *dir) {
	if c.decided {
		return
	}
	c.decided = true
	if !c.left.Load() && !sc.w.opts.CountLinks && !sc.w.add(inodeset.Key{Dev: c.dev, Ino: c.ino}) {
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
	c.left.Store(true)
	var subs []*dir
	if c.st != nil {
		subs = append(subs, c.st.subdirs...)
	}
	c.errs, c.late = nil, nil
	c.mu.Unlock()
	for _, s := range subs {
		if !s.decided {
			s.decided = true
			sc.drop(s)
			sc.partDone(s)
		}
	}
}

// streamLink takes a hard link found in d, named name there, or, with
// flagBelow, below d's child name: among d's children when they are
// reported, else held to be charged when d completes.
func (sc *scan) streamLink(d *dir, name []byte, t Totals, flags uint8, id linkID, rec *bulk.Record) {
	if d.node == nil { // below the -d limit: to the reported directory above
		name, flags = unsafe.Slice(unsafe.StringData(d.top.name), len(d.top.name)), flags|flagBelow
		d = d.top.parent
	}
	deep := !(sc.ordered || sc.reported(d.depth+1)) || flags&flagBelow != 0
	sc.pack(d, deep, name, t, flags, &id, rec)
}

// streamError takes an entry of d that could not be examined, to report
// among d's children in du's order.
func (sc *scan) streamError(d *dir, name []byte, err Error) {
	st := d.stream()
	d.mu.Lock()
	st.errs = append(st.errs, entryErr{string(name), err})
	d.mu.Unlock()
}

// streamLinks takes the hard links among b's records (indices in links),
// found in d.
func (sc *scan) streamLinks(d *dir, b *bulk.Batch, links []int32) {
	for _, i := range links {
		rec := &b.Records[i]
		sc.streamLink(d, b.Name(rec), entryTotals(rec), fileFlags(rec), linkID{inodeset.Key{Dev: rec.Dev, Ino: rec.Ino}, rec.Nlink}, rec)
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
		id := linkID{inodeset.Key{Dev: rec.Dev, Ino: rec.Ino}, rec.Nlink}
		if u := under[ni]; u >= 0 {
			sc.streamLink(holder[ni], t.NodeName(&t.Nodes[u]), entryTotals(rec), flagBelow, id, nil)
		} else {
			sc.streamLink(holder[ni], t.Links.Name(rec), entryTotals(rec), 0, id, rec)
		}
	}
	clear(holder) // keeps no directory alive
}

// streamListed marks reported d as listed: its children are all known.
func (sc *scan) streamListed(d *dir) {
	d.mu.Lock()
	if st := d.st; st != nil { // (none: d lists nothing)
		st.files.sort()
		// Names are unique among siblings: no order to keep among equals.
		slices.SortFunc(st.subdirs, func(a, b *dir) int { return strings.Compare(a.name, b.name) })
		slices.SortFunc(st.errs, func(a, b entryErr) int { return strings.Compare(a.name, b.name) })
	}
	d.mu.Unlock()
	d.listed.Store(true)
	sc.em.kick()
}

// streamComplete marks reported d complete (its Node's figures set).
// (An unreported one holds no links: streamLink hands them above.)
func (sc *scan) streamComplete(d *dir) {
	if d.node != nil {
		d.complete.Store(true)
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
	// front is the directory the emitter waits on when it stops: to be
	// listed, or, the top frame's, to be complete; nil once all is out.
	front  atomic.Pointer[dir]
	stack  []frame    // the directories entered, the root first
	file   Node       // the Node handed out for a file
	detail Detail     // and its Detail, with Options.Details
	dirs   []byte     // the stack's paths (frame)
	spill  spillFile  // spill.go
	pool   packedPool // packed.go
}

// filePath is Join of the top frame's path (e.dirs[:end]) and name,
// written after that path in e.dirs, as du's traversal writes a name
// after its directory's path in one buffer: a file handed out costs its
// name, not its path (a copy of the path each cost -a on a chain of 400
// 255-byte names 15 % of its time). The path aliases e.dirs: it is valid
// until the next push or filePath, so for the length of a Stream call.
func (e *emitter) filePath(end int, name []byte) (path, base string) {
	b := e.dirs[:end]
	if end == 0 || b[end-1] != '/' {
		b = append(b, '/')
	}
	at := len(b)
	b = append(b, name...)
	e.dirs = b[:end] // the same buffer, or the one append moved it to
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
	st      *streamDir // d's, once listed (made then if d listed nothing)
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
		e.wake()
	}
}

// holdsBack reports whether a worker is to leave directory x unread for
// now: more than heldBudget waits on the stream, and x comes after all of
// the directory the stream waits on (front), so that what x lists would
// wait too. Only what the stream waits on is then read (scan.pop), and
// what waits stays within the budget plus what each worker reads at once,
// however long the stream waits (a directory of a million entries read
// before a tree of a million more).
func (e *emitter) holdsBack(x *dir) bool {
	if e.held.Load() <= heldBudget {
		return false
	}
	f := e.front.Load()
	return f != nil && afterAll(x, f)
}

// afterAll reports whether directory x comes in du's order after f and
// all that is below f.
func afterAll(x, f *dir) bool {
	for x.depth > f.depth {
		x = x.parent
	}
	if x == f {
		return false // below f
	}
	y := f
	for y.depth > x.depth {
		y = y.parent
	}
	if x == y {
		return false // above f
	}
	for x.parent != y.parent {
		x, y = x.parent, y.parent
	}
	return x.name > y.name
}

// wake has the workers waiting in scan.pop test again, after the emitter
// moved on. (A worker counts itself in gated before it tests, and this
// loads gated after the emitter's stores: either it sees the worker, or
// the worker sees the stores.)
func (e *emitter) wake() {
	sc := e.sc
	if sc.gated.Load() > 0 {
		sc.stackMu.Lock()
		sc.gate.Broadcast()
		sc.stackMu.Unlock()
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
	e.wake()
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
		if !f.d.listed.Load() {
			e.front.Store(f.d)
			return
		}
		if f.st == nil {
			f.st = f.d.stream()
		}
		st := f.st
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
				if n := f.d.node; n.Detail != nil && !opts.FollowAll {
					n.Detail.Unsearchable = !st.examined && deniedAll(st.errs)
				}
				opts.OnEnter(e.dirPath(f), f.d.node)
			}
		}
		if !st.merging {
			st.merging = true
			if err := st.files.startMerge(&e.spill, withTime); err != nil {
				e.spillFailed(err)
			}
		}
		// The next child by name: a file or link, a subdirectory, or an
		// entry not examined (before a file of its name: Details lists
		// that too).
		var fname []byte
		var sname, ename string
		rec, src, hasF := st.files.head()
		hasS, hasE := st.si < len(st.subdirs), st.ei < len(st.errs)
		if hasF {
			fname = recordName(rec)
		}
		if hasS {
			sname = st.subdirs[st.si].name
		}
		if hasE {
			ename = st.errs[st.ei].name
		}
		switch {
		case hasF && (!hasS || string(fname) < sname) && (!hasE || string(fname) < ename):
			name, t, flags, id, ident, _ := decodeRecord(rec, withTime)
			path, base := e.filePath(f.end, name) // a copy: advance may reuse rec
			if err := st.files.advance(src, withTime); err != nil {
				e.spillFailed(err)
			}
			if flags&flagLink == 0 {
				e.file = Node{Name: base, Totals: t, Own: t, Type: ident.typ, Dev: ident.dev, Ino: ident.ino}
				if opts.Details {
					e.detail = fileDetail(t, flags)
					e.file.Detail = &e.detail
				}
				opts.Stream(path, &e.file)
			} else {
				counted := e.charge(st, id.key, t, true)
				// Details lists every link to a hard-linked file; a file
				// with one link reached again (-L) is not listed again.
				if counted && opts.ListFiles && e.sc.reported(f.d.depth+1) || opts.Details && (counted || id.nlink > 1) {
					e.file = Node{Name: base, Totals: t, Own: t, Type: ident.typ, Dev: ident.dev, Ino: ident.ino}
					if opts.Details {
						e.detail = Detail{Self: t, Ino: id.key.Ino, Nlink: id.nlink, Uncounted: !counted, NotReg: flags&flagNotReg != 0}
						e.file.Detail = &e.detail
					}
					opts.Stream(path, &e.file)
				}
			}
			if _, _, more := st.files.head(); !more {
				e.free(&st.files)
			}
		case hasE && (!hasS || ename < sname):
			x := &st.errs[st.ei]
			st.ei++
			e.sc.w.fail(x.err.Op, x.err.Path, x.err.Err)
		case hasS:
			c := st.subdirs[st.si]
			if e.sc.ordered {
				e.sc.decide(c)
			}
			if c.left.Load() {
				st.subdirs[st.si] = nil
				st.si++
				continue
			}
			if !c.listed.Load() {
				e.front.Store(c)
				return
			}
			st.subdirs[st.si] = nil
			st.si++
			e.push(c)
		default:
			if !f.d.complete.Load() {
				e.front.Store(f.d)
				return
			}
			e.chargeDeep(st)
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
				e.stack[len(e.stack)-1].st.extra.addSum(st.extra)
			}
			st.subdirs, st.errs = nil, nil
		}
	}
	e.front.Store(nil)
}

// release lets go of what d listed, complete and dropped: the emitter
// never enters it (an ordered walk's directory read at a later path
// too), so its files and links no longer wait.
func (e *emitter) release(d *dir) {
	d.mu.Lock()
	n := 0
	if st := d.st; st != nil {
		n = e.free(&st.files)
		if st.deep != nil {
			n += e.free(st.deep)
			st.deep = nil
		}
	}
	d.mu.Unlock()
	if n > 0 {
		e.wake()
	}
}

// free empties p, its chunks to the pool, and takes what it held off the
// held count, returning that.
func (e *emitter) free(p *packed) int {
	n := p.alloc
	e.held.Add(-int64(n))
	e.pool.put(p)
	*p = packed{}
	return n
}

// charge counts a link to file k, of figures t, in st if it is the
// first link to the file met in du's order (and not counted under an
// earlier operand); direct: right in st's directory.
func (e *emitter) charge(st *streamDir, k inodeset.Key, t Totals, direct bool) bool {
	w := e.sc.w
	if !w.opts.CountLinks && !w.add(k) { // (every file of an ordered walk under -l counts)
		w.after.links.Add(1)
		return false
	}
	st.extra.addSum(t)
	if direct {
		st.extraOwn.addSum(t)
	}
	w.after.files.Add(1)
	w.after.blocks.Add(t.Blocks)
	return true
}

// chargeDeep charges st's deep links, complete, in name order.
func (e *emitter) chargeDeep(st *streamDir) {
	p := st.deep
	if p == nil {
		return
	}
	withTime := e.sc.w.opts.Time != 0
	p.sort()
	if err := p.startMerge(&e.spill, withTime); err != nil {
		e.spillFailed(err)
	}
	for {
		rec, src, ok := p.head()
		if !ok {
			break
		}
		_, t, flags, id, _, _ := decodeRecord(rec, withTime)
		if err := p.advance(src, withTime); err != nil {
			e.spillFailed(err)
		}
		e.charge(st, id.key, t, flags&flagBelow == 0)
	}
	e.free(p)
	st.deep = nil
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
