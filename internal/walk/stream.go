package walk

import (
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/godu-sh/godu/internal/bulk"
	"github.com/godu-sh/godu/internal/inodeset"
)

// An ordered stream (Options.Stream) hands out the reported entries in
// du's order, children before their directory and siblings by name, each
// as soon as its subtree is complete and every entry before it has been
// handed out; nothing is kept once it has been.
//
// Each reported directory lists its reported children once it is read
// (listed), sorted by name. An emitter walks these lists in order: it
// hands out a file at once, enters a subdirectory once it is listed, and
// hands out a directory once it is complete and all its children have
// gone. Whatever is complete ahead of the emitter waits in the lists.
//
// Hard-linked files are charged as the emitter meets them: the first link
// in du's order counts, as when the walk charges them afterwards, but
// without a table of every linked file met. A directory whose children
// are reported holds its links among its children, by name; one whose
// children are not (at the -d limit) holds those of its whole subtree,
// each named by its path below it with NUL between names, so that sorting
// the names bytewise gives du's order, and charges them once complete.
// Directories that are not reported pass their links up when they
// complete.

// streamDir is what a stream keeps of a directory until it is handed out.
type streamDir struct {
	kids     []kid  // reported children, sorted by name once listed
	links    []link // links charged when the directory is complete
	listed   atomic.Bool
	complete atomic.Bool
	skipped  atomic.Bool // left out after all (a mount point under -x)
	// Links charged by the emitter below and in the directory, and those
	// of them directly in it (du -S); the emitter's alone.
	extra, extraOwn Totals
}

type kid struct {
	name string
	file *Node // a listed file
	dir  *dir  // a reported subdirectory
	link *link // a hard-linked file, charged if its first link
}

// link is a hard-linked file met in the walk. name is its path below the
// directory holding it, its names separated by NUL.
type link struct {
	name string
	key  inodeset.Key
	t    Totals
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

// streamKid adds a reported child to d's list.
func (d *dir) streamKid(k kid) {
	st := d.stream()
	if k.dir != nil {
		k.dir.stream()
	}
	d.mu.Lock()
	st.kids = append(st.kids, k)
	d.mu.Unlock()
}

// streamLinks takes the hard links among b's records (indices in links),
// found in d: among d's children when they are reported, else held to be
// charged when d completes.
func (r *run) streamLinks(d *dir, b *bulk.Batch, links []int32) {
	st := d.stream()
	asKids := d.node != nil && r.reported(d.depth+1)
	d.mu.Lock()
	for _, i := range links {
		rec := &b.Records[i]
		l := link{name: string(b.Name(rec)), key: inodeset.Key{Dev: rec.Dev, Ino: rec.Ino}, t: entryTotals(rec)}
		if asKids {
			st.kids = append(st.kids, kid{name: l.name, link: &l})
		} else {
			st.links = append(st.links, l)
		}
	}
	d.mu.Unlock()
}

// streamTreeLinks takes the links a subtree walk met: each goes to the
// nearest directory of the walk that has a dir (dirs, by node), with its
// path below it.
func (r *run) streamTreeLinks(d *dir, t *bulk.Tree, dirs []*dir) {
	var names []string
	for k, ni := range t.LinkNodes {
		names = names[:0]
		h := d
		for j := ni; j >= 0; j = t.Nodes[j].Parent {
			if dirs[j] != nil {
				h = dirs[j]
				break
			}
			names = append(names, string(t.NodeName(&t.Nodes[j])))
		}
		rec := &t.Links.Records[k]
		if len(names) == 0 {
			r.streamLinks(h, &t.Links, []int32{int32(k)})
			continue
		}
		var sb strings.Builder
		for i := len(names) - 1; i >= 0; i-- {
			sb.WriteString(names[i])
			sb.WriteByte(0)
		}
		sb.Write(t.Links.Name(rec))
		st := h.stream()
		h.mu.Lock()
		st.links = append(st.links, link{name: sb.String(), key: inodeset.Key{Dev: rec.Dev, Ino: rec.Ino}, t: entryTotals(rec)})
		h.mu.Unlock()
	}
}

// streamListed marks reported d as listed: its children are all known.
func (r *run) streamListed(d *dir) {
	st := d.stream()
	d.mu.Lock()
	sort.Slice(st.kids, func(i, j int) bool { return st.kids[i].name < st.kids[j].name })
	d.mu.Unlock()
	st.listed.Store(true)
	r.em.kick()
}

// streamComplete marks reported d complete (its Node's figures set), or
// passes unreported d's links to its parent.
func (r *run) streamComplete(d *dir) {
	if d.node != nil {
		d.stream().complete.Store(true)
		r.em.kick()
		return
	}
	if d.st == nil || len(d.st.links) == 0 || d.parent == nil {
		return
	}
	p := d.parent.stream()
	d.parent.mu.Lock()
	for _, l := range d.st.links {
		l.name = d.name + "\x00" + l.name
		p.links = append(p.links, l)
	}
	d.parent.mu.Unlock()
	d.st.links = nil
}

// emitter hands out entries in order (see above). One goroutine at a
// time advances it; others only mark it dirty.
type emitter struct {
	r     *run
	mu    sync.Mutex
	dirty atomic.Bool
	stack []frame // the directories entered, the root first
}

type frame struct {
	d    *dir
	path string
	i    int // the next child
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

func (e *emitter) advance() {
	opts := &e.r.w.opts
	for len(e.stack) > 0 {
		f := &e.stack[len(e.stack)-1]
		st := f.d.st
		if !st.listed.Load() {
			return
		}
		if f.i < len(st.kids) {
			k := st.kids[f.i]
			switch {
			case k.file != nil:
				opts.Stream(Join(f.path, k.name), k.file)
			case k.link != nil:
				if e.charge(st, k.link, true) && opts.ListFiles {
					t := k.link.t
					opts.Stream(Join(f.path, k.name), &Node{Name: k.name, Totals: t, Own: t})
				}
			case k.dir.st.skipped.Load():
			default:
				if !k.dir.st.listed.Load() {
					return
				}
				st.kids[f.i] = kid{}
				f.i++
				e.stack = append(e.stack, frame{d: k.dir, path: Join(f.path, k.name)})
				continue
			}
			st.kids[f.i] = kid{}
			f.i++
			continue
		}
		if !st.complete.Load() {
			return
		}
		sort.Slice(st.links, func(i, j int) bool { return st.links[i].name < st.links[j].name })
		for i := range st.links {
			l := &st.links[i]
			e.charge(st, l, !strings.Contains(l.name, "\x00"))
		}
		n := f.d.node
		n.Totals.Add(st.extra)
		n.Own.Add(st.extraOwn)
		opts.Stream(f.path, n)
		e.stack = e.stack[:len(e.stack)-1]
		if len(e.stack) > 0 {
			e.stack[len(e.stack)-1].d.st.extra.Add(st.extra)
		}
		st.kids, st.links = nil, nil
	}
}

// charge counts l in st if it is the first link to its file met in du's
// order (and not counted under an earlier operand).
func (e *emitter) charge(st *streamDir, l *link, direct bool) bool {
	w := e.r.w
	if !w.add(l.key) {
		w.after.links.Add(1)
		return false
	}
	st.extra.Add(l.t)
	if direct {
		st.extraOwn.Add(l.t)
	}
	w.after.files.Add(1)
	w.after.blocks.Add(l.t.Blocks)
	return true
}
