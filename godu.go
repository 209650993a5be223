// Package godu measures disk usage the way GNU du does, with the engine of
// the godu command: the same numbers as `du -B1` (DiskUsage),
// `du --apparent-size -B1` (ApparentSize) and `du --inodes` (Inodes), read
// in parallel with one kernel call per directory where the system allows.
//
// Scan sums one tree and starts fresh each time. A Scanner sums several
// operands as one du command line does: a file reached through a second
// hard link, in the same operand or another, counts once.
//
// Errors met below the operand (an unreadable directory, an entry that
// vanished) never stop a scan; each is an *Error, and errors.Is sees the
// system error inside it (errors.Is(err, fs.ErrPermission)).
//
// Importing the package changes nothing in the process. The godu command
// calls TuneProcess at start; a program may too.
package godu

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/godu-sh/godu/internal/bulk"
	"github.com/godu-sh/godu/internal/walk"
)

// Options configures a scan. The zero value scans the whole tree with du's
// defaults and reports every directory.
type Options struct {
	// Jobs bounds the goroutines (and so threads and open directories)
	// working at once; 0 (or less) picks a value for the system, and
	// above 4096 it is 4096.
	Jobs int
	// MaxDepth is the deepest level reported below the operand (du -d);
	// 0 means no limit. Deeper entries still count in the totals.
	MaxDepth int
	// Summarize reports the operand only (du -s).
	Summarize bool
	// Files reports files as well as directories (du -a).
	Files bool
	// CountLinks counts every link to a file (du -l).
	CountLinks bool
	// OneFileSystem skips entries on another device than the operand's
	// (du -x).
	OneFileSystem bool
	// FollowOperand follows an operand that is a symlink (du -H);
	// FollowSymlinks follows every symlink (du -L).
	FollowOperand, FollowSymlinks bool
	// Time selects the time whose latest value each Node carries:
	// modification (the zero value), access or status change.
	Time TimeKind
	// Skip, if set, is asked about every entry's path (the operand joined
	// with names by "/") before it is read; an entry skipped is neither
	// counted nor entered, as with du --exclude.
	Skip func(path string) bool
	// OnNode, if set, receives each reported entry in du's order, as the
	// godu command prints it: children before their directory, siblings
	// by name (Node.Walk's order), each once its subtree is complete and
	// every entry before it was received, with its final figures (hard
	// links included) and its path. Calls are serialised. The Node's
	// Children are left nil (the returned tree has them); the Node and
	// path are the callee's to keep. Returning Stop, or any error, ends
	// the scan: Scan then returns that error, and the operand's Node,
	// under its sums so far, with the subtrees complete by then below it
	// (as when ctx ends first).
	OnNode func(path string, n *Node) error
	// NoTree, with OnNode, keeps no Node below the operand: Scan returns
	// the operand's Node without Children, and a scan's memory no longer
	// grows with the number of entries reported (as the godu command's
	// output does not), only with the widest directory's and with the
	// depth (each directory open on the way down is held, about a KiB).
	NoTree bool
	// OnError, if set, receives each error met below the operand, and the
	// scan's returned error leaves them out. Calls are serialised.
	//
	// Skip, OnNode and OnError are called on the scan's own goroutines: a
	// panic in one ends the program, as Scan cannot recover it.
	OnError func(*Error)
}

// TimeKind is the time a Node reports the latest of.
type TimeKind int

const (
	ModTime    TimeKind = iota // last modification (st_mtime)
	AccessTime                 // last access (st_atime)
	ChangeTime                 // last status change (st_ctime)
)

// Type is the kind of an entry.
type Type uint8

// Entry types.
const (
	TypeUnknown Type = iota
	TypeFile         // a regular file
	TypeDir          // a directory
	TypeSymlink      // a symbolic link (on Windows, a reparse point naming another file)
	TypeOther        // a fifo, socket or device
)

func (t Type) String() string {
	switch t {
	case TypeFile:
		return "file"
	case TypeDir:
		return "dir"
	case TypeSymlink:
		return "symlink"
	case TypeOther:
		return "other"
	}
	return "unknown"
}

// Stop, returned by Options.OnNode, ends a scan early.
var Stop = errors.New("godu: scan stopped")

// Node is one reported entry: the operand, a directory, or (with
// Options.Files) a file. Its sums cover its whole subtree.
type Node struct {
	// Name is the operand as given for the root, the entry's name below.
	Name string
	// IsDir says whether the entry is a directory (Type is TypeDir).
	IsDir bool
	// Type is the entry's kind: a symlink is reported as such, unless
	// followed (FollowOperand, FollowSymlinks).
	Type Type
	// Dev and Ino identify the entry, as lstat's st_dev and st_ino (on
	// Windows, the volume serial number and the file ID).
	Dev, Ino uint64
	// DiskUsage is the space allocated, in bytes (du -B1).
	DiskUsage int64
	// ApparentSize is the sum of sizes, in bytes (du --apparent-size -B1).
	ApparentSize int64
	// Inodes counts the entries, this one included (du --inodes).
	Inodes int64
	// Latest is the latest time (Options.Time) in the subtree; zero when
	// none was read.
	Latest time.Time
	// ErrBelow says that an error was met at or below this entry: its
	// sums leave something out.
	ErrBelow bool
	// Children are the reported entries directly below, sorted by name.
	Children []*Node
}

// Walk calls fn for every Node of the tree below n and for n, children
// before parents, in name order, with each entry's path.
func (n *Node) Walk(fn func(path string, n *Node)) {
	n.walk(n.Name, fn)
}

func (n *Node) walk(path string, fn func(string, *Node)) {
	for _, c := range n.Children {
		c.walk(walk.Join(path, c.Name), fn)
	}
	fn(path, n)
}

// Error is a failure met during a scan: Op is "access" (the entry is not
// counted) or "read directory" (the directory itself still counts), as in
// du's messages. Err is the system error; a followed symlink whose
// target is missing, which du reports naming none, has syscall.ENOENT.
type Error struct {
	Op   string
	Path string
	Err  error
}

func (e *Error) Error() string {
	if e.Err == nil {
		return "godu: cannot " + e.Op + " " + e.Path
	}
	return "godu: cannot " + e.Op + " " + e.Path + ": " + e.Err.Error()
}

// Unwrap returns the system error, so that errors.Is and errors.As see it.
func (e *Error) Unwrap() error { return e.Err }

// Progress is a snapshot of a running scan.
type Progress struct {
	Dirs, Files int64 // entries counted so far
	DiskUsage   int64 // bytes allocated counted so far
	Errors      int64
	Current     string // a directory being read now, or ""
}

// Scan sums the tree at path. It returns the root Node and nil, or with
// entries that could not be read the Node of what could and an error
// joining one *Error per failure (unless Options.OnError took them). An
// operand that cannot be examined gives a nil Node and its *Error; one
// that Options.Skip leaves out, a nil Node and a nil error (du prints
// nothing for it). Of several trailing slashes, the paths keep one, as
// du's do ("d///" is reported "d/", its entries "d/x"). When
// ctx ends first, Scan returns ctx's error and the operand's Node, its
// sums covering what was read by then, with below it the subtrees
// complete by then, in du's order: each entry OnNode received whose
// directories up to the operand it received too, with its final figures
// and whole subtree. An entry received in a directory not complete by
// then has no Node to hold it and is left out (OnNode had it). When
// OnNode ends the scan, that tree and OnNode's error.
func Scan(ctx context.Context, path string, opts Options) (*Node, error) {
	return newScanner(opts, false).Scan(ctx, path)
}

// A Scanner sums several operands as one du command line: its memory of
// the files counted spans all its Scan calls, so a file linked from two
// operands, or an operand given twice, counts once. Progress is safe to
// call from another goroutine during a scan; Scan calls must not overlap.
type Scanner struct {
	bad      error // the Options cannot be scanned with
	opts     Options
	w        *walk.Walker
	mu       sync.Mutex // guards errs and errPaths
	errs     []error    // kept for Scan's result
	errPaths []string
	stopAt   error // set by OnNode's calls only
	ctx      context.Context
	cancel   context.CancelFunc
	// The tree being built from the stream (onStream): the operand's
	// path, the Nodes received at each depth and not yet under their
	// directory, and the operand's Node once received.
	root   string
	levels [][]*Node
	top    *Node
}

// NewScanner returns a Scanner.
func NewScanner(opts Options) *Scanner { return newScanner(opts, true) }

// newScanner returns a Scanner; hashAll makes it remember every entry
// counted, directories too, as du does whenever it has several operands.
func newScanner(opts Options, hashAll bool) *Scanner {
	s := &Scanner{opts: opts}
	if opts.Time < ModTime || opts.Time > ChangeTime {
		s.bad = fmt.Errorf("godu: Options.Time %d names no time", int(opts.Time))
		opts.Time = ModTime
	}
	depth := opts.MaxDepth
	if depth <= 0 {
		depth = -1
	}
	if opts.Summarize {
		depth = 0
	}
	wo := walk.Options{
		Jobs:           opts.Jobs,
		CountLinks:     opts.CountLinks,
		HashAll:        hashAll,
		OneFileSystem:  opts.OneFileSystem,
		ListFiles:      opts.Files,
		MaxDepth:       depth,
		FollowOperands: opts.FollowOperand,
		FollowAll:      opts.FollowSymlinks,
		Time:           [...]bulk.Mode{bulk.MTime, bulk.ATime, bulk.CTime}[opts.Time],
		Exclude:        opts.Skip,
		OnError:        s.onError,
	}
	// Every scan reads the walk's ordered stream, the one the command
	// prints: each entry in du's order, with its final figures (hard
	// links charged to the first link in that order, and with
	// FollowSymlinks a directory reached twice counted at the first path
	// in it); OnNode is given each, and Scan's tree is built from it
	// (onStream).
	wo.Stream, wo.FileIDs = s.onStream, true
	s.w = walk.New(wo)
	return s
}

// Scan sums the tree at path, as the package's Scan does, leaving out
// what this Scanner counted before.
// An operand counted before gives a nil Node and a nil error, even when
// the scan that met it was cancelled or stopped.
func (s *Scanner) Scan(ctx context.Context, path string) (*Node, error) {
	if s.bad != nil {
		return nil, s.bad
	}
	path = walk.TrimSlashes(path)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.errs, s.errPaths, s.stopAt, s.ctx, s.cancel = nil, nil, nil, ctx, cancel
	s.root, s.levels, s.top = path, s.levels[:0], nil
	wn, err := s.w.Walk(ctx, path)
	if s.stopAt != nil {
		err = s.stopAt
	}
	if err != nil {
		if wn == nil {
			return nil, err
		}
		return s.tree(path, wn), err // the partial tree
	}
	if wn == nil {
		if len(s.errs) > 0 {
			return nil, errors.Join(s.errs...)
		}
		return nil, nil // counted before by this Scanner
	}
	return s.tree(path, wn), errors.Join(s.errs...)
}

// tree is the tree built from the stream, with the errors met below each
// entry marked: whole, or, when the scan ended early, wn's sums so far
// over the operand's entries received by then.
func (s *Scanner) tree(path string, wn *walk.Node) *Node {
	root := s.top
	if root == nil {
		root = node(wn)
		if len(s.levels) > 1 && !s.opts.NoTree {
			root.Children = s.levels[1]
		}
	}
	clear(s.levels) // the Scanner keeps none of the tree
	s.levels, s.top = s.levels[:0], nil
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.errPaths {
		root.markError(path, p)
	}
	return root
}

// Progress returns the counts so far of all the Scanner's scans, as one
// du command line counts its operands together (one entry counts once).
func (s *Scanner) Progress() Progress {
	st := s.w.Stats()
	return Progress{Dirs: st.Dirs, Files: st.Files, DiskUsage: st.Blocks * 512,
		Errors: st.Errors, Current: s.w.Current()}
}

func (s *Scanner) onError(e *walk.Error) {
	err := &Error{Op: e.Op, Path: e.Path, Err: e.Err}
	if err.Err == nil { // a followed symlink to nothing (du names no error)
		err.Err = syscall.ENOENT
	}
	s.mu.Lock()
	s.errPaths = append(s.errPaths, e.Path)
	if s.opts.OnError == nil {
		s.errs = append(s.errs, err)
	}
	s.mu.Unlock()
	if s.opts.OnError != nil {
		s.opts.OnError(err)
	}
}

// onStream receives each reported entry from the walk, in du's order
// (children before their directory, siblings by name), and hands it to
// OnNode, then puts it in the tree Scan returns: an entry's children are
// the Nodes received one level below it since its previous sibling.
func (s *Scanner) onStream(path string, wn *walk.Node) {
	if s.stopAt != nil || s.ctx.Err() != nil {
		return // the scan's end: what follows was not received
	}
	path = strings.Clone(path) // the stream reuses its memory
	n := node(wn)
	if !wn.IsDir {
		n.Name = strings.Clone(wn.Name) // and a file's Name's (a directory's is its own)
	}
	depth := 0
	if path != s.root && strings.HasPrefix(path, s.root) {
		rel := path[len(s.root):]
		depth = strings.Count(rel, "/")
		if strings.HasSuffix(s.root, "/") {
			depth++ // Join adds none after it
		}
	}
	for len(s.levels) <= depth+1 {
		s.levels = append(s.levels, nil)
	}
	if s.stopAt == nil && s.opts.OnNode != nil {
		call := *n
		call.ErrBelow = s.errorBelow(path)
		if err := s.opts.OnNode(path, &call); err != nil {
			s.stopAt = err
			s.cancel()
		}
	}
	if depth == 0 {
		s.top = n
	}
	if s.opts.NoTree {
		return
	}
	if wn.IsDir {
		n.Children = s.levels[depth+1]
		s.levels[depth+1] = nil
	}
	if depth > 0 {
		s.levels[depth] = append(s.levels[depth], n)
	}
}

// errorBelow says whether an error was kept at or below path so far.
func (s *Scanner) errorBelow(path string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.errPaths {
		if under(p, path) {
			return true
		}
	}
	return false
}

// under says whether p is dir or below it.
func under(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir) && (strings.HasSuffix(dir, "/") || p[len(dir)] == '/')
}

// markError flags n and every Node down to the one at errPath.
func (n *Node) markError(path, errPath string) {
	if !under(errPath, path) {
		return
	}
	n.ErrBelow = true
	for _, c := range n.Children {
		c.markError(walk.Join(path, c.Name), errPath)
	}
}

func node(wn *walk.Node) *Node {
	n := &Node{Name: wn.Name, IsDir: wn.IsDir, Type: Type(wn.Type), Dev: wn.Dev, Ino: wn.Ino,
		DiskUsage: wn.Blocks * 512, ApparentSize: wn.Bytes, Inodes: wn.Inodes}
	if wn.Time != walk.NoTime {
		n.Latest = time.Unix(0, wn.Time)
	}
	return n
}

// TuneProcess makes the process-wide settings the godu command makes at
// start: one P more than the runtime chose (GOMAXPROCS, unless the
// environment sets it), added once a scan has run a few milliseconds
// with two workers at once, so that the walk's workers, as many as the
// CPUs at once, never find every P in a call and the runtime's monitor
// leaves their calls alone; on Linux, SCHED_BATCH for every thread of
// the program, when it runs under the default policy and the machine is
// not busy (its load average below its CPUs): a thread that wakes then
// waits for a free CPU instead of preempting one, so the runtime's own
// threads do not preempt the scan's workers, nor any other thread of the
// program; with the cgo engine, one malloc
// arena under glibc (the walk's threads then cost no arena each), and on
// macOS no download of dataless (cloud-evicted) files while scanning.
// They affect the whole program, which is why importing the package
// never makes them.
func TuneProcess() { bulk.TuneProcess() }
