package du

// The files options name: --files0-from's operands, read when the walk
// starts, and --exclude-from's patterns, read at the option's place.

import (
	"bytes"
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

// readFiles0 reads the operands of --files0-from, and the messages for
// those that are invalid, by position. ok is false after a fatal error,
// which it reports.
func (o *Options) readFiles0(stderr io.Writer) (ops []string, invalid map[int]string, readErr, ok bool) {
	in := o.stdin()
	if o.Files0From != "-" {
		f, err := os.Open(o.Files0From)
		if err != nil {
			fmt.Fprintf(stderr, "%s: cannot open %s for reading: %s\n", o.Prog, Quote(o.Files0From), ErrorText(err))
			return nil, nil, false, false
		}
		defer f.Close()
		in = f
	}
	// A read error ends the list: the names read whole before it are
	// summed (and the total printed), and du exits 1.
	data, err := io.ReadAll(in)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %s: read error: %s\n", o.Prog, QuoteFileName(o.Files0From), ErrorText(err))
		readErr = true
		data = data[:bytes.LastIndexByte(data, 0)+1]
	}
	ops = strings.Split(string(data), "\x00")
	if ops[len(ops)-1] == "" {
		ops = ops[:len(ops)-1]
	}
	invalid = map[int]string{}
	for i, n := range ops {
		switch {
		case n == "":
			invalid[i] = fmt.Sprintf("%s:%d: invalid zero-length file name", QuoteFileName(o.Files0From), i+1)
		case o.Files0From == "-" && n == "-":
			invalid[i] = "when reading file names from stdin, no file name of " + Quote(n) + " allowed"
		}
	}
	return ops, invalid, readErr, true
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
