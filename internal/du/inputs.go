package du

// The files options name: --files0-from's operands, read one at a time
// as the walk goes, and --exclude-from's patterns, read at the option's
// place.

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
)

// stdin is where "-" reads.
func (o *Options) stdin() io.Reader {
	if o.Stdin == nil {
		return os.Stdin
	}
	return o.Stdin
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

// openFiles0 opens --files0-from's input; ok is false after a fatal error,
// which it reports. The caller closes f, if not nil.
func (o *Options) openFiles0(stderr io.Writer) (src *files0, f *os.File, ok bool) {
	in := o.stdin()
	if o.Files0From != "-" {
		var err error
		f, err = os.Open(o.Files0From)
		if err != nil {
			fmt.Fprintf(stderr, "%s: cannot open %s for reading: %s\n", o.Prog, Quote(o.Files0From), ErrorText(err))
			return nil, nil, false
		}
		in = f
	}
	return &files0{o: o, r: bufio.NewReader(in)}, f, true
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
// line, lines left empty are skipped, and a pattern ends at a NUL. The caller reads it at the
// option's place on the command line, as du does.
func (o *Options) ExcludeFrom(file string) error {
	var data []byte
	var err error
	if file == "-" {
		data, err = io.ReadAll(o.stdin())
	} else {
		data, err = os.ReadFile(file)
	}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimRightFunc(line, func(r rune) bool { return r < 0x80 && isCSpace(byte(r)) })
		if line != "" {
			// du's patterns are C strings: one ends at a NUL.
			if i := strings.IndexByte(line, 0); i >= 0 {
				line = line[:i]
			}
			o.Exclude.Add(line)
		}
	}
	return err
}
