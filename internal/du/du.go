// Package du is GNU du's behaviour at the edges of a walk: which sizes are
// printed (apparent or allocated, blocks or inodes), in which unit and
// rounding, on which lines and in which order, with which messages and exit
// status. The walking itself is internal/walk's; this package turns
// Options and operands into du's output (du.go), reading the files options
// name (inputs.go), writing lines, JSON or ncdu's format (sink.go,
// json.go, ncdu.go) and, on stderr, progress and --stats (progress.go).
package du

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/godu-sh/godu/internal/bulk"
	"github.com/godu-sh/godu/internal/walk"
)

// Deref says which symlinks are followed.
type Deref int

const (
	DerefNone Deref = iota // -P: never (the default)
	DerefArgs              // -H, -D: operands only
	DerefAll               // -L: all
)

// Options are du's options after parsing.
type Options struct {
	Block         BlockSize
	Apparent      bool // --apparent-size (and -b)
	Inodes        bool // --inodes
	All           bool // -a
	MaxDepth      int  // -d; negative for no limit; -s is 0
	Total         bool // -c
	NullTerminate bool // -0
	CountLinks    bool // -l
	OneFileSystem bool // -x
	Deref         Deref
	Threshold     int64 // -t: print only sizes >= t (t >= 0) or <= -t (t < 0)
	Jobs          int   // -j; <= 0 for the default
	SeparateDirs  bool  // -S: a directory's size leaves out its subdirectories
	// Time is bulk.ATime, MTime or CTime for --time, else 0; TimeFormat
	// is the strftime format of --time-style.
	Time       bulk.Mode
	TimeFormat string
	Exclude    Excluder // --exclude, -X
	// Files0From names a file of NUL-separated operands (--files0-from),
	// "-" for standard input, when Files0 is set (an empty name is a
	// name, which du fails to open).
	Files0From string
	Files0     bool
	// Stdin is what "-" names to --files0-from and --exclude-from (nil:
	// os.Stdin).
	Stdin io.Reader
	JSON  bool // --json: one JSON document instead of lines
	Stats bool // --stats: a summary on stderr at the end
	zone  Zone // TZ, read once
	times tbuf // each line's time, formatted (lines are written one at a time)
	// Progress shows a status line on stderr while walking: > 0 always,
	// < 0 never, 0 when stderr is a terminal (StderrFd).
	Progress int
	StderrFd int
	Prog     string
	// NcduExport names the file of --ncdu-export (-o), "-" for standard
	// output: the scan in ncdu's format (ncdu.go) instead of lines.
	NcduExport string
	Version    string // godu's, for the export's header
}

// Run prints du's output for the operands args (none means ".", or those
// of --files0-from, read as the walk goes) on stdout and its
// messages on stderr, and returns du's exit status.
func Run(ctx context.Context, o Options, args []string, stdout, stderr io.Writer) int {
	if o.Prog == "" {
		o.Prog = "godu"
	}
	status := 0
	var operandErrs int64 // operands refused before a walk (--stats)
	var src operands
	if o.Files0 {
		f0, f, msg := o.openFiles0()
		if msg != "" {
			fmt.Fprintf(stderr, "%s: %s\n", o.Prog, msg)
			if o.JSON {
				// du stops here; the document still says why, as for a
				// list that opens but cannot be read.
				out := bufio.NewWriter(stdout)
				s := newJSONSink(&o, out)
				s.fail(&walk.Error{Op: "operand", Err: errors.New(msg)})
				s.end(nil)
				if err := out.Flush(); err != nil {
					writeError(stderr, o.Prog, err)
				}
			}
			return 1
		}
		if f != nil {
			defer f.Close()
		}
		src = f0
	} else {
		src = argOperands(args)
	}
	if o.Block.Size == 0 {
		o.Block = DefaultBlockSize()
	}
	if o.Inodes {
		o.Block.Size = 1
	}
	if o.Time != 0 {
		o.zone = LocalZone()
	}
	// Lines leave during the walk (walk.Options.Stream): each write
	// erases the progress line first.
	pw := &progressWriter{w: stdout}
	out := bufio.NewWriterSize(pw, 64<<10)
	var export *ncduSink
	if o.NcduExport != "" {
		ops := readAll(src)
		if len(*ops) != 1 {
			fmt.Fprintf(stderr, "%s: --ncdu-export takes one operand\n", o.Prog)
			return 1
		}
		stat := os.Lstat
		if o.Deref != DerefNone {
			stat = os.Stat
		}
		src = ops
		if msg := (*ops)[0].msg; msg != "" {
			// A zero-length name: no entry to export, nothing to name.
			fmt.Fprintf(stderr, "%s: %s\n", o.Prog, msg)
			return 1
		}
		if fi, err := stat((*ops)[0].op); err == nil && !fi.IsDir() {
			// ncdu's format holds a directory at the top.
			fmt.Fprintf(stderr, "%s: cannot export %s: %s\n", o.Prog, Quote((*ops)[0].op), ErrorText(syscall.ENOTDIR))
			return 1
		}
		if o.NcduExport != "-" {
			f, err := os.Create(o.NcduExport)
			if err != nil {
				fmt.Fprintf(stderr, "%s: cannot open %s for writing: %s\n", o.Prog, Quote(o.NcduExport), ErrorText(err))
				return 1
			}
			defer f.Close() // closed and checked below; this one for early returns
			pw.w = f
		}
		export = newNcduSink(out, o.Version, time.Now())
		o.All, o.MaxDepth = true, -1
	}
	var outMu sync.Mutex // out, between the stream and error messages
	// The output is on a terminal: standard output, or an export written
	// to one by its path (-o /dev/tty, -o /dev/stdout), where the
	// progress line would erase its unfinished line as well.
	if f, ok := pw.w.(*os.File); ok {
		switch {
		case f == os.Stdout:
			pw.tty = isTerminal(1)
		case export != nil:
			pw.tty = isTerminal(int(f.Fd()))
		}
	}
	pw.lines = o.JSON || export != nil // documents that end with a line's end
	fl := newFlusher(out, &outMu, pw.tty)
	defer fl.stop()
	var prog *progress
	started := time.Now()
	var exclude func(string) bool
	if !o.Exclude.Empty() {
		exclude = o.Exclude.Match
	}
	var sink sink = &lineSink{o: &o, out: out}
	if o.JSON {
		sink = newJSONSink(&o, out)
	}
	// du sums each level's latest time from zeroed memory (1970-01-01)
	// for the levels of the first entry it counts, and from "no time"
	// once it descends again; its total starts at 1970 too. So the
	// directories of the first operand with an entry counted below them
	// show 1970 at the least (du: those above its first entry), and an
	// empty directory or a later operand its own time.
	floorTime := true
	// --files0-from's later names are not known yet: any may be a file
	// counted under an earlier one.
	checkFiles := o.Files0 || laterFileOperand(args, o.Deref != DerefNone)
	wo := walk.Options{
		FollowAll:      o.Deref == DerefAll,
		Time:           o.Time,
		Exclude:        exclude,
		Jobs:           o.Jobs,
		CountLinks:     o.CountLinks,
		SeparateDirs:   o.SeparateDirs,
		OneFileSystem:  o.OneFileSystem,
		HashAll:        len(args) > 1 || o.Files0,
		Aliased:        len(args) > 1 && aliasedOperands(args),
		CheckFiles:     checkFiles,
		ListFiles:      o.All,
		MaxDepth:       o.MaxDepth,
		FollowOperands: o.Deref != DerefNone,
		Details:        export != nil,
		Stream: func(path string, n *walk.Node) {
			if export != nil {
				outMu.Lock()
				export.entry(path, n)
				fl.printed()
				outMu.Unlock()
				return
			}
			t := n.Totals
			if o.SeparateDirs {
				t = n.Own
			}
			if floorTime && n.IsDir && n.Totals.Inodes > 1 {
				t.Time = max(t.Time, 0)
			}
			v := o.value(t)
			if o.Threshold >= 0 && v < uint64(o.Threshold) || o.Threshold < 0 && v > uint64(-o.Threshold) {
				return
			}
			outMu.Lock()
			sink.entry(path, t, n.IsDir)
			fl.printed()
			outMu.Unlock()
		},
		OnError: func(e *walk.Error) {
			outMu.Lock()
			defer outMu.Unlock()
			sink.fail(e)
			out.Flush()
			prog.clear()
			defer prog.release()
			if e.Err == nil {
				fmt.Fprintf(stderr, "%s: cannot %s %s\n", o.Prog, e.Op, Quote(e.Path))
				return
			}
			fmt.Fprintf(stderr, "%s: cannot %s %s: %s\n", o.Prog, e.Op, Quote(e.Path), ErrorText(e.Err))
		},
	}
	if export != nil {
		wo.OnEnter = func(path string, n *walk.Node) {
			outMu.Lock()
			export.enter(path, n)
			fl.printed()
			outMu.Unlock()
		}
	}
	w := walk.New(wo)
	if width, tty := terminalWidth(o.StderrFd); o.Progress > 0 || o.Progress == 0 && tty && !toPipe(pw.w) {
		if width == 0 {
			width = 80
		}
		prog = startProgress(stderr, o.StderrFd, width, w)
		pw.p = prog
	}
	var total walk.Totals     // Time 0: du's total
	_, waits := src.(*files0) // the next name may be a while coming
	for {
		if waits { // no progress line while the walk waits for input
			fl.flush()
			prog.clear()
		}
		op, msg, ok := src.next()
		if waits {
			prog.release()
		}
		if !ok {
			break
		}
		if msg != "" {
			operandErrs++
			outMu.Lock()
			sink.fail(&walk.Error{Op: "operand", Err: errors.New(msg)})
			outMu.Unlock()
			fl.flush()
			prog.clear()
			fmt.Fprintf(stderr, "%s: %s\n", o.Prog, msg)
			prog.release()
			status = 1
			continue
		}
		op = walk.TrimSlashes(op)
		root, err := w.Walk(ctx, op)
		if err != nil {
			fl.stop()
			prog.end()
			out.Flush()
			return 1
		}
		if root == nil {
			if export != nil {
				outMu.Lock()
				export.noRoot(op, exclude != nil && exclude(op))
				fl.printed()
				outMu.Unlock()
			}
			continue
		}
		floorTime = false
		total.Add(root.Totals)
		fl.flush()
	}
	fl.stop()
	prog.end()
	switch {
	case export != nil:
		export.end()
	case o.Total:
		sink.end(&total)
	default:
		sink.end(nil)
	}
	if o.Stats {
		out.Flush()
		jobs := o.Jobs
		if jobs <= 0 {
			jobs = walk.DefaultJobs()
		}
		st := w.Stats()
		st.Errors += operandErrs // (the walk's count has those below the operands)
		printStats(stderr, o.Prog, st, time.Since(started), jobs)
	}
	err := out.Flush()
	if f, ok := pw.w.(*os.File); ok && export != nil && err == nil {
		err = f.Close()
	}
	if err != nil {
		writeError(stderr, o.Prog, err)
		return 1
	}
	if w.Stats().Errors > 0 {
		status = 1
	}
	return status
}

// laterFileOperand reports whether an operand after the first is not a
// directory (as given, or followed): it may have been counted under an
// earlier operand, so every file must be remembered from the start.
func laterFileOperand(operands []string, follow bool) bool {
	for _, op := range operands[min(1, len(operands)):] {
		if fi, err := os.Lstat(op); err == nil && !fi.IsDir() {
			if fi, err := os.Stat(op); !follow || err != nil || !fi.IsDir() {
				return true
			}
		}
	}
	return false
}

// value is the number a line shows for t, before scaling: inodes, apparent
// bytes or allocated bytes.
func (o *Options) value(t walk.Totals) uint64 {
	switch {
	case o.Inodes:
		return uint64(t.Inodes)
	case o.Apparent:
		// du sums sizes as unsigned 64-bit numbers: read so, godu's sums
		// are du's up to 2^64-1 (where du, saturating, stops).
		return uint64(t.Bytes)
	}
	return uint64(t.Blocks) * 512
}

// ErrorText is the C library's message for err ("Permission denied"), which
// Go spells in lower case.
func ErrorText(err error) string {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			break
		}
		if _, isErrno := err.(syscall.Errno); isErrno {
			break
		}
		err = u.Unwrap()
	}
	s := err.Error()
	if _, ok := err.(syscall.Errno); ok && s != "" {
		return strings.ToUpper(s[:1]) + s[1:]
	}
	return s
}

// toPipe reports whether w is a pipe or a socket: what reads it may write
// to the terminal godu's stderr is on (godu -a | less, | grep), and a
// progress line drawn there would be cut into its lines. The line is then
// drawn only with --progress.
func toPipe(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) != 0
}

// writeError reports output that could not be written, as du does when it
// closes its standard output: a descriptor that was never open
// (ErrNotOpen) fails the close too and du names that error (EBADF); any
// other failure (a full disk, a closed pipe, a descriptor open only for
// reading) came from an earlier write, the close succeeds, and du names
// none.
func writeError(stderr io.Writer, prog string, err error) {
	if errors.Is(err, ErrNotOpen) {
		fmt.Fprintf(stderr, "%s: write error: %s\n", prog, ErrorText(syscall.EBADF))
		return
	}
	fmt.Fprintf(stderr, "%s: write error\n", prog)
}

// ErrNotOpen is what reads and writes of a standard stream closed when
// the program started fail with: EBADF, told apart from the EBADF of a
// descriptor open in the other direction, which du's close succeeds on.
var ErrNotOpen error = notOpen{}

type notOpen struct{}

func (notOpen) Error() string        { return syscall.EBADF.Error() }
func (notOpen) Is(target error) bool { return target == syscall.EBADF }
func (notOpen) Unwrap() error        { return syscall.EBADF }
