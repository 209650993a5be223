package du

// The files options name: --files0-from's operands, read one at a time
// as the walk goes, and --exclude-from's patterns, read at the option's
// place.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// stdin is where "-" reads.
func (o *Options) stdin() io.Reader {
	if o.Stdin == nil {
		return os.Stdin
	}
	return o.Stdin
}

// stdinNotOpen reports whether standard input was closed at start: its
// reader fails every read, an empty one too, with ErrNotOpen.
func (o *Options) stdinNotOpen() bool {
	if o.Stdin == nil {
		return false
	}
	_, err := o.Stdin.Read(nil)
	return errors.Is(err, ErrNotOpen)
}

// operands yields Run's operands in order, each with the message du
// gives instead of walking it (msg, status 1) when it is invalid.
type operands interface {
	next() (op, msg string, ok bool)
}

// operandList is operands read before the walk: the command line's, or
// --files0-from's for the export, which takes one.
type operandList []operand

type operand struct{ op, msg string }

func (l *operandList) next() (string, string, bool) {
	if len(*l) == 0 {
		return "", "", false
	}
	o := (*l)[0]
	*l = (*l)[1:]
	return o.op, o.msg, true
}

// argOperands is the command line's operands: "." when there are none.
func argOperands(args []string) *operandList {
	if len(args) == 0 {
		args = []string{"."}
	}
	l := make(operandList, len(args))
	for i, a := range args {
		l[i].op = a
		if a == "" {
			l[i].msg = "invalid zero-length file name"
		}
	}
	return &l
}

// readAll reads every operand of src.
func readAll(src operands) *operandList {
	var l operandList
	for {
		op, msg, ok := src.next()
		if !ok {
			return &l
		}
		l = append(l, operand{op, msg})
	}
}

// files0 reads --files0-from's names one at a time, as du does: a name is
// walked and its line printed before the next is read, so a producer
// waiting for the answer to each name (a pipe, a terminal) gets it.
type files0 struct {
	o    *Options
	r    *bufio.Reader
	n    int // names read
	done bool
}

// openFiles0 opens --files0-from's input, or returns du's message for a
// file that cannot be opened, a fatal error. The caller closes f, if not
// nil.
func (o *Options) openFiles0() (src *files0, f *os.File, msg string) {
	in := o.stdin()
	if o.Files0From != "-" {
		var err error
		f, err = os.Open(o.Files0From)
		if err != nil {
			if o.stdinNotOpen() {
				// du reopens its standard input on the file (freopen),
				// which on failure closes descriptor 0: closed since the
				// start, that close fails and its EBADF is the error told.
				err = syscall.EBADF
			}
			return nil, nil, fmt.Sprintf("cannot open %s for reading: %s", Quote(o.Files0From), ErrorText(err))
		}
		in = f
	}
	return &files0{o: o, r: bufio.NewReader(in)}, f, ""
}

// next returns the next name, or the message for an invalid one. A read
// error ends the list with its message: the names read whole before it
// are walked, a name cut by it is not.
func (s *files0) next() (string, string, bool) {
	if s.done {
		return "", "", false
	}
	name, err := s.r.ReadString(0)
	switch {
	case err == io.EOF && name == "":
		s.done = true
		return "", "", false
	case err == io.EOF: // the last name needs no NUL after it
		s.done = true
	case err != nil:
		s.done = true
		return "", fmt.Sprintf("%s: read error: %s", QuoteFileName(s.o.Files0From), ErrorText(err)), true
	default:
		name = name[:len(name)-1]
	}
	s.n++
	switch {
	case name == "":
		return "", fmt.Sprintf("%s:%d: invalid zero-length file name", QuoteFileName(s.o.Files0From), s.n), true
	case s.o.Files0From == "-" && name == "-":
		return "", "when reading file names from stdin, no file name of " + Quote(name) + " allowed", true
	}
	return name, "", true
}

// ExcludeFrom adds to o.Exclude the patterns of file (o.Stdin for "-"),
// one a line, as du reads -X: trailing white space is dropped from each
// line, lines left empty are skipped, and a pattern ends at a NUL. The
// caller reads it at the option's place on the command line, as du does.
// It reads a line at a time and keeps no more of one than its pattern, so
// memory stays bounded whatever the file (du holds it whole), and skips
// a file's holes: the NULs they hold end a pattern, and no line ends there.
func (o *Options) ExcludeFrom(file string) error {
	in := o.stdin()
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return err
		}
		defer f.Close()
		in = &holeSkipper{f: f}
	}
	r := bufio.NewReaderSize(in, 64<<10)
	space := func(r rune) bool { return r < 0x80 && isCSpace(byte(r)) }
	var pat []byte
	nul, blank := false, true // a NUL met on this line; only white space so far
	for {
		chunk, err := r.ReadSlice('\n')
		end := len(chunk) > 0 && chunk[len(chunk)-1] == '\n'
		if end {
			chunk = chunk[:len(chunk)-1]
		}
		if !nul {
			if i := bytes.IndexByte(chunk, 0); i >= 0 {
				pat, nul, blank = append(pat, chunk[:i]...), true, false
			} else {
				pat = append(pat, chunk...)
			}
		}
		if blank && len(bytes.TrimRightFunc(chunk, space)) > 0 {
			blank = false
		}
		if end || err != nil && err != bufio.ErrBufferFull {
			if !blank {
				if !nul { // trailing white space goes; after a NUL it is not the pattern's
					pat = bytes.TrimRightFunc(pat, space)
				}
				o.Exclude.Add(string(pat))
			}
			pat, nul, blank = pat[:0], false, true
		}
		if err != nil && err != bufio.ErrBufferFull {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}

// holeSkipper reads a file, each hole as one NUL (lseek SEEK_DATA and
// SEEK_HOLE, where the system has them).
type holeSkipper struct {
	f     *os.File
	off   int64
	plain bool // no hole finding: plain reads
}

const (
	seekData = 3 // SEEK_DATA and SEEK_HOLE on Linux, the BSDs and macOS
	seekHole = 4
)

func (h *holeSkipper) Read(p []byte) (int, error) {
	if h.plain || len(p) == 0 {
		return h.f.Read(p)
	}
	data, err := h.f.Seek(h.off, seekData)
	if err != nil {
		if errors.Is(err, syscall.ENXIO) { // a hole to the end, or the end
			end, err := h.f.Seek(0, io.SeekEnd)
			if err == nil && end > h.off {
				h.off = end
				p[0] = 0
				return 1, nil
			}
			return 0, io.EOF
		}
		h.plain = true // not supported here (a pipe, say): plain reads on
		if h.off > 0 { // (ReadAt left the file's offset at 0)
			if _, err := h.f.Seek(h.off, io.SeekStart); err != nil {
				return 0, err
			}
		}
		return h.f.Read(p)
	}
	if data > h.off { // in a hole
		h.off = data
		p[0] = 0
		return 1, nil
	}
	hole, err := h.f.Seek(h.off, seekHole)
	if err != nil || hole <= h.off {
		hole = h.off + int64(len(p))
	}
	n, err := h.f.ReadAt(p[:min(int64(len(p)), hole-h.off)], h.off)
	h.off += int64(n)
	if err == io.EOF && n > 0 {
		err = nil
	}
	return n, err
}
