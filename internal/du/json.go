package du

import (
	"bufio"
	"encoding/base64"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/godu-sh/godu/internal/walk"
)

// JSON output (--json): one document, every line du would print as an
// object, in du's order, then the total (with -c) and the errors met.
//
//	{"entries": [{"path": "a/b", "type": "directory", "disk_usage": 8192,
//	              "apparent_size": 4096, "inodes": 3, "time": "…"}],
//	 "total": {...}, "errors": [{"op": "read directory", "path": "…",
//	 "error": "Permission denied"}]}
//
// An error's op is du's ("read directory", "access"), or "operand" for
// an operand refused before the walk (path "", error du's message).
//
// disk_usage and apparent_size are bytes; with -S they leave out
// subdirectories as the line would. A path that is not valid UTF-8 is
// given twice: "path" with each invalid byte replaced by U+FFFD, and
// "path_bytes", the exact bytes in standard base64, so that the document
// is always valid JSON and loses nothing.
//
// Entries are written as they come (jsonSink), so the document never
// exists whole in memory; only the errors wait for the end.
type jsonSink struct {
	o      *Options
	out    *bufio.Writer
	n      int // entries written
	errors []jsonError
	buf    []byte
}

type jsonError struct {
	Op, Path, Error string
}

func newJSONSink(o *Options, out *bufio.Writer) *jsonSink {
	out.WriteString("{\n  \"entries\": [")
	return &jsonSink{o: o, out: out}
}

func (s *jsonSink) entry(path string, t walk.Totals, isDir bool) {
	if s.n > 0 {
		s.out.WriteByte(',')
	}
	s.n++
	s.out.WriteString("\n    ")
	s.buf = s.o.appendJSONEntry(s.buf[:0], "    ", path, t, isDir, true)
	s.out.Write(s.buf)
}

func (s *jsonSink) fail(e *walk.Error) {
	je := jsonError{Op: e.Op, Path: e.Path}
	if e.Err != nil {
		je.Error = ErrorText(e.Err)
	}
	s.errors = append(s.errors, je)
}

// end writes the rest of the document: the total (nil without -c) and
// the errors.
func (s *jsonSink) end(total *walk.Totals) {
	out := s.out
	if s.n > 0 {
		out.WriteString("\n  ")
	}
	out.WriteString("],\n")
	if total != nil {
		out.WriteString("  \"total\": ")
		out.Write(s.o.appendJSONEntry(s.buf[:0], "  ", "total", *total, false, false))
		out.WriteString(",\n")
	}
	out.WriteString("  \"errors\": [")
	for i, e := range s.errors {
		if i > 0 {
			out.WriteByte(',')
		}
		b := append(s.buf[:0], "\n    {\n      \"op\": "...)
		b = appendJSONString(b, e.Op)
		b = append(b, ",\n"...)
		b = appendJSONPath(b, "      ", e.Path)
		if e.Error != "" {
			b = append(b, ",\n      \"error\": "...)
			b = appendJSONString(b, e.Error)
		}
		b = append(b, "\n    }"...)
		out.Write(b)
	}
	if len(s.errors) > 0 {
		out.WriteString("\n  ")
	}
	out.WriteString("]\n}\n")
}

// appendJSONEntry appends one entry object, its lines indented by
// indent+2 and its closing brace by indent.
func (o *Options) appendJSONEntry(b []byte, indent, path string, t walk.Totals, isDir, typed bool) []byte {
	in := indent + "  "
	b = append(b, "{\n"...)
	b = appendJSONPath(b, in, path)
	if typed {
		b = append(b, ",\n"...)
		b = append(b, in...)
		if isDir {
			b = append(b, `"type": "directory"`...)
		} else {
			b = append(b, `"type": "file"`...)
		}
	}
	for _, f := range [...]struct {
		name string
		v    uint64 // (apparent sizes add as du's: unsigned, saturating)
	}{{"disk_usage", uint64(t.Blocks) * 512}, {"apparent_size", uint64(t.Bytes)}, {"inodes", uint64(t.Inodes)}} {
		b = append(b, ",\n"...)
		b = append(b, in...)
		b = append(b, '"')
		b = append(b, f.name...)
		b = append(b, `": `...)
		b = strconv.AppendUint(b, f.v, 10)
	}
	if o.Time != 0 {
		b = append(b, ",\n"...)
		b = append(b, in...)
		b = append(b, `"time": `...)
		b = appendJSONString(b, time.Unix(0, t.Time).Format(time.RFC3339Nano))
	}
	b = append(b, '\n')
	b = append(b, indent...)
	return append(b, '}')
}

// appendJSONPath appends the "path" member, indented by in, and, for a
// path that is not valid UTF-8, "path_bytes".
func appendJSONPath(b []byte, in, path string) []byte {
	b = append(b, in...)
	b = append(b, `"path": `...)
	b = appendJSONString(b, validUTF8(path))
	if !utf8.ValidString(path) {
		b = append(b, ",\n"...)
		b = append(b, in...)
		b = append(b, `"path_bytes": "`...)
		b = base64.StdEncoding.AppendEncode(b, []byte(path))
		b = append(b, '"')
	}
	return b
}

// validUTF8 is s with each byte of an invalid sequence replaced by
// U+FFFD, as encoding/json shows it (strings.ToValidUTF8 gives a run of
// them one).
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s { // an invalid byte is utf8.RuneError, one byte long
		b.WriteRune(r)
	}
	return b.String()
}

// appendJSONString appends s, valid UTF-8, as a JSON string, escaped as
// encoding/json escapes it (<, > and & too, and U+2028, U+2029).
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			start = i + size
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
