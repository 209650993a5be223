// Package du is GNU du's behaviour at the edges of a walk: which sizes are
// printed (apparent or allocated, blocks or inodes), in which unit and
// rounding, on which lines and in which order, with which messages and exit
// status. The walking itself is internal/walk's; this package turns
// Options and operands into du's output.
package du

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"syscall"

	"github.com/godu-sh/godu/internal/walk"
)

// Deref says which symlinks are followed.
type Deref int

const (
	DerefNone Deref = iota // -P: never (the default)
	DerefArgs              // -H, -D: operands only
	DerefAll               // -L: all (not yet supported)
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
	Prog          string
}

// Run prints du's output for operands (none means ".") on stdout and its
// messages on stderr, and returns du's exit status.
func Run(ctx context.Context, o Options, operands []string, stdout, stderr io.Writer) int {
	if len(operands) == 0 {
		operands = []string{"."}
	}
	if o.Prog == "" {
		o.Prog = "godu"
	}
	if o.Block.Size == 0 {
		o.Block = DefaultBlockSize()
	}
	if o.Inodes {
		o.Block.Size = 1
	}
	out := bufio.NewWriterSize(stdout, 64<<10)
	status := 0
	w := walk.New(walk.Options{
		Jobs:           o.Jobs,
		CountLinks:     o.CountLinks,
		OneFileSystem:  o.OneFileSystem,
		HashAll:        len(operands) > 1,
		ListFiles:      o.All,
		MaxDepth:       o.MaxDepth,
		FollowOperands: o.Deref != DerefNone,
		OnError: func(e *walk.Error) {
			out.Flush()
			fmt.Fprintf(stderr, "%s: cannot %s %s: %s\n", o.Prog, e.Op, Quote(e.Path), ErrorText(e.Err))
		},
	})
	end := byte('\n')
	if o.NullTerminate {
		end = 0
	}
	var total walk.Totals
	for _, op := range operands {
		if op == "" {
			out.Flush()
			fmt.Fprintf(stderr, "%s: invalid zero-length file name\n", o.Prog)
			status = 1
			continue
		}
		op = trimSlashes(op)
		root, err := w.Walk(ctx, op)
		if err != nil {
			out.Flush()
			return 1
		}
		if root == nil {
			continue
		}
		total.Blocks += root.Blocks
		total.Bytes += root.Bytes
		total.Inodes += root.Inodes
		root.Walk(func(path string, n *walk.Node) {
			v := o.value(n.Totals)
			if o.Threshold >= 0 && v < uint64(o.Threshold) || o.Threshold < 0 && v > uint64(-o.Threshold) {
				return
			}
			o.line(out, v, path, end)
		})
	}
	if o.Total {
		o.line(out, o.value(total), "total", end)
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintf(stderr, "%s: write error: %s\n", o.Prog, ErrorText(err))
		return 1
	}
	if w.Errors() > 0 {
		status = 1
	}
	return status
}

// value is the number a line shows for t, before scaling: inodes, apparent
// bytes or allocated bytes.
func (o *Options) value(t walk.Totals) uint64 {
	switch {
	case o.Inodes:
		return uint64(t.Inodes)
	case o.Apparent:
		if t.Bytes < 0 {
			return 0
		}
		return uint64(t.Bytes)
	}
	return uint64(t.Blocks) * 512
}

func (o *Options) line(out *bufio.Writer, v uint64, path string, end byte) {
	out.WriteString(o.Block.Format(v))
	out.WriteByte('\t')
	out.WriteString(path)
	out.WriteByte(end)
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

// trimSlashes leaves one of several trailing slashes, as du's traversal
// does ("a//" is printed "a/"); a lone "//" stays.
func trimSlashes(s string) string {
	n := len(s)
	if n > 2 && s[n-1] == '/' {
		for n > 1 && s[n-2] == '/' {
			n--
		}
	}
	return s[:n]
}
