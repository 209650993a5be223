package du

import (
	"bufio"
	"path/filepath"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/godu-sh/godu/internal/walk"
)

// The ncdu export (--ncdu-export FILE, -o FILE): the scan in ncdu's JSON
// dump format, version 1.2, which `ncdu -f FILE` and `gdu -f FILE` browse:
//
//	[1,2,{"progname":"godu","progver":"…","timestamp":…},
//	[{"name":"/abs/operand","asize":…,"dsize":…,"dev":…},
//	{"name":"file","asize":…,"dsize":…},
//	[{"name":"subdir",…}, …children…]]]
//
// A directory is an array: its own entry, then its children. asize and
// dsize are the entry's own apparent size and allocated bytes as godu
// counts them (left out when 0), so that the readers' totals are godu's.
// "dev" is given for the operand and wherever it changes; a hard-linked
// file has "ino", "nlink" and "hlnkc", every link listed (the readers count
// each file once); "read_error" marks what could not be read, "excluded"
// what --exclude ("pattern") or -x ("otherfs") left out, "notreg" what is
// neither a regular file nor a directory. A directory that can be listed
// but not searched (walk.Detail.Unsearchable) is exported as ncdu, which
// cannot enter it, exports it: marked read_error, without entries (du
// still reports each entry it could not examine).
//
// Names are JSON strings. ncdu itself writes a name that is not valid
// UTF-8 as raw bytes, which is not JSON; godu writes each byte b of an
// invalid sequence as the escape \udcXX of the lone surrogate U+DC00+b
// (the "surrogateescape" convention, as Python decodes file names), which
// is valid JSON, loses nothing, and loads in ncdu and gdu.
//
// Entries are written as the walk hands them out, in du's order: the
// export never exists whole in memory.
type ncduSink struct {
	out    *bufio.Writer
	devs   []uint64 // the device of each directory entered
	buf    []byte
	rooted bool // the operand's entry is written
	// skip counts the directories entered, and not yet closed, since the
	// unsearchable one whose entries are left out (0: none).
	skip int
}

func newNcduSink(out *bufio.Writer, version string, now time.Time) *ncduSink {
	b := append([]byte(nil), `[1,2,{"progname":"godu","progver":`...)
	b = appendNcduString(b, version)
	b = append(b, `,"timestamp":`...)
	b = strconv.AppendInt(b, now.Unix(), 10)
	b = append(b, '}')
	out.Write(b)
	return &ncduSink{out: out}
}

// enter opens a directory's array.
func (s *ncduSink) enter(path string, n *walk.Node) {
	s.rooted = true
	if s.skip > 0 {
		s.skip++
		return
	}
	b := append(s.buf[:0], ",\n["...)
	b = s.appendItem(b, path, n)
	if n.Detail != nil && n.Detail.Unsearchable {
		s.skip = 1 // marked read_error by appendItem
	}
	var dev uint64
	if n.Detail != nil {
		dev = n.Detail.Dev
	}
	s.devs = append(s.devs, dev)
	s.out.Write(b)
	s.buf = b
}

// entry writes a file, or closes a directory's array.
func (s *ncduSink) entry(path string, n *walk.Node) {
	if s.skip > 1 || s.skip == 1 && !n.IsDir {
		if n.IsDir {
			s.skip--
		}
		return
	}
	if n.IsDir {
		s.skip = 0
		s.devs = s.devs[:len(s.devs)-1]
		s.out.WriteByte(']')
		return
	}
	b := append(s.buf[:0], ",\n"...)
	b = s.appendItem(b, path, n)
	s.out.Write(b)
	s.buf = b
}

// noRoot writes the entry of an operand that gave no tree, so that the
// export still holds the directory the readers need at its top: one
// --exclude left out (excluded), or one that could not be examined.
func (s *ncduSink) noRoot(path string, excluded bool) {
	if s.rooted {
		return
	}
	s.rooted = true
	b := append(s.buf[:0], ",\n[{\"name\":"...)
	b = appendNcduString(b, rootName(path))
	if excluded {
		b = append(b, `,"excluded":"pattern"}]`...)
	} else {
		b = append(b, `,"read_error":true}]`...)
	}
	s.out.Write(b)
	s.buf = b
}

// rootName is the operand's name in the export: its absolute path, as
// ncdu writes it.
func rootName(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

func (s *ncduSink) end() {
	s.out.WriteString("]\n")
}

func (s *ncduSink) appendItem(b []byte, path string, n *walk.Node) []byte {
	d := n.Detail
	if d == nil { // (every Node has one under Details)
		d = &walk.Detail{}
	}
	name := n.Name
	root := len(s.devs) == 0
	if root {
		name = rootName(path)
	}
	b = append(b, `{"name":`...)
	b = appendNcduString(b, name)
	if d.Excluded != "" {
		b = append(b, `,"excluded":"`...)
		b = append(b, d.Excluded...)
		return append(b, `"}`...)
	}
	if d.Self.Bytes > 0 {
		b = append(b, `,"asize":`...)
		b = strconv.AppendInt(b, d.Self.Bytes, 10)
	}
	if d.Self.Blocks > 0 {
		b = append(b, `,"dsize":`...)
		b = strconv.AppendInt(b, d.Self.Blocks*512, 10)
	}
	if n.IsDir && (root || d.Dev != s.devs[len(s.devs)-1]) {
		b = append(b, `,"dev":`...)
		b = strconv.AppendUint(b, d.Dev, 10)
	}
	if d.Nlink > 1 {
		b = append(b, `,"ino":`...)
		b = strconv.AppendUint(b, d.Ino, 10)
		b = append(b, `,"hlnkc":true,"nlink":`...)
		b = strconv.AppendUint(b, uint64(d.Nlink), 10)
	}
	if d.ReadError || d.Unsearchable {
		b = append(b, `,"read_error":true`...)
	}
	if d.NotReg {
		b = append(b, `,"notreg":true`...)
	}
	return append(b, '}')
}

// appendNcduString appends s as a JSON string: control characters, '"'
// and '\' escaped, valid UTF-8 as is, each byte of an invalid sequence as
// \udcXX (see above).
func appendNcduString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
			i++
		case c < 0x20 || c == 0x7f:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			i++
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = append(b, '\\', 'u', 'd', 'c', hex[c>>4], hex[c&0xF])
			} else {
				b = append(b, s[i:i+size]...)
			}
			i += size
		}
	}
	return append(b, '"')
}
