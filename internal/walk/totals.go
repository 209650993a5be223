package walk

import (
	"math"
	"sort"
	"sync/atomic"

	"github.com/godu-sh/godu/internal/bulk"
)

// Totals is the usage of an entry or a subtree.
type Totals struct {
	Blocks int64 // allocated size, in 512-byte units
	Bytes  int64 // apparent size: st_size of regular files and symlinks
	Inodes int64 // number of entries, the directory itself included
	// Time is the latest time of the subtree chosen by Options.Time, in
	// nanoseconds since the epoch (NoTime when none).
	Time int64
}

// NoTime is Totals.Time when there is no time: none was asked for, or
// nothing was met. (atomicTotals keeps times biased: its zero value holds
// NoTime.)
const NoTime = math.MinInt64

// addSum adds u to t, a sum that starts as the zero Totals: an empty sum
// holds no time (its Time 0 is not 1970).
func (t *Totals) addSum(u Totals) {
	if u.Inodes == 0 {
		return
	}
	if t.Inodes == 0 {
		t.Time = NoTime
	}
	t.Add(u)
}

// Add adds u to t: sums, and the later time.
func (t *Totals) Add(u Totals) {
	t.Blocks += u.Blocks
	t.Bytes = bulk.AddSize(t.Bytes, u.Bytes)
	t.Inodes += u.Inodes
	t.Time = max(t.Time, u.Time)
}

// Node is one reported entry: an operand, a directory down to MaxDepth, or
// (with ListFiles) a file.
type Node struct {
	// Name is the operand as given for a root, the entry's name otherwise.
	Name  string
	IsDir bool
	// Type, Dev and Ino are the entry's kind, st_dev and st_ino.
	Type     bulk.Type
	Dev, Ino uint64
	// Totals covers the whole subtree.
	Totals
	// Own covers the entry itself and, for a directory, the files directly
	// in it, without its subdirectories (du -S).
	Own Totals
	// Children are the reported entries directly below, sorted by name.
	Children []*Node
	// Detail describes the entry itself, with Options.Details (nil
	// otherwise: a directory's Node waits with its parent's listing, and
	// a directory of many subdirectories holds them all).
	Detail *Detail
}

// sortChildren puts n's children in name order, as they are printed.
func (n *Node) sortChildren() {
	sort.Slice(n.Children, func(i, j int) bool { return n.Children[i].Name < n.Children[j].Name })
}

// Join joins a directory path and a name as du prints them: "a" and "b"
// give "a/b", "a/" and "b" give "a/b".
func Join(dir, name string) string {
	if len(dir) > 0 && dir[len(dir)-1] == '/' {
		return dir + name
	}
	return dir + "/" + name
}

// TrimSlashes leaves one of an operand's several trailing slashes, as
// du's traversal does ("a//" is printed "a/"); a lone "//" stays.
func TrimSlashes(s string) string {
	n := len(s)
	if n > 2 && s[n-1] == '/' {
		for n > 1 && s[n-2] == '/' {
			n--
		}
	}
	return s[:n]
}

// Walk visits each reported node of the tree below n after its children,
// in name order, with its path as du prints it. The root's path is its Name.
func (n *Node) Walk(fn func(path string, n *Node)) {
	n.walk(n.Name, fn)
}

func (n *Node) walk(path string, fn func(string, *Node)) {
	for _, c := range n.Children {
		c.walk(Join(path, c.Name), fn)
	}
	fn(path, n)
}

// Error is one failure met during a walk. Op is "read directory" (the
// directory's own size still counts) or "access" (the entry is not
// counted), as in du's messages.
type Error struct {
	Op   string
	Path string
	Err  error
}

func (e *Error) Error() string {
	if e.Err == nil {
		return "cannot " + e.Op + " " + e.Path
	}
	return "cannot " + e.Op + " " + e.Path + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// entryTotals is what one record contributes by itself.
func entryTotals(r *bulk.Record) Totals {
	t := Totals{Blocks: r.Blocks, Inodes: 1, Time: r.Tsec*1e9 + r.Tnsec}
	if r.Type == bulk.Regular || r.Type == bulk.Symlink {
		t.Bytes = r.Size
	}
	return t
}

// atomicTotals is a Totals that workers add to concurrently. Its fields
// are plain words used through sync/atomic, so that a new directory's
// totals are set without atomic stores before any other worker can see
// it; the zero value is empty (tbias 0 is NoTime).
type atomicTotals struct {
	blocks, bytes, inodes int64
	tbias                 uint64 // Time with its sign bit flipped: ordered as unsigned
}

func biasTime(t int64) uint64 { return uint64(t) ^ 1<<63 }

// set makes a equal to t; only while a is not yet shared.
func (a *atomicTotals) set(t Totals) {
	*a = atomicTotals{blocks: t.Blocks, bytes: t.Bytes, inodes: t.Inodes, tbias: biasTime(t.Time)}
}

func (a *atomicTotals) add(t Totals) {
	atomic.AddInt64(&a.blocks, t.Blocks)
	if s := atomic.AddInt64(&a.bytes, t.Bytes); uint64(s) < uint64(t.Bytes) {
		// Past 2^64-1 (bulk.AddSize): saturated. Every add that passes it
		// sees so itself, those after this store too.
		atomic.StoreInt64(&a.bytes, -1)
	}
	atomic.AddInt64(&a.inodes, t.Inodes)
	if t.Time == NoTime {
		return
	}
	for b := biasTime(t.Time); ; {
		old := atomic.LoadUint64(&a.tbias)
		if b <= old || atomic.CompareAndSwapUint64(&a.tbias, old, b) {
			break
		}
	}
}

func (a *atomicTotals) load() Totals {
	return Totals{Blocks: atomic.LoadInt64(&a.blocks), Bytes: atomic.LoadInt64(&a.bytes),
		Inodes: atomic.LoadInt64(&a.inodes), Time: int64(atomic.LoadUint64(&a.tbias) ^ 1<<63)}
}
