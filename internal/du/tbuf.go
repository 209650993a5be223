package du

import (
	"bufio"
	"bytes"
)

// tbuf is what strftime writes: text, and each run of a padding byte
// longer than runMax kept as its byte and count. A field width may be
// as large as 2^31-1 (where GNU's strftime stops counting); du's
// fprintftime writes such padding to its output as it goes, in constant
// memory, and so does writeTo, where a string of it cost 2 GiB a field.
type tbuf struct {
	pieces []tpiece // before cur
	cur    []byte
}

// tpiece is text, or n copies of fill (fill != 0).
type tpiece struct {
	text string
	fill byte
	n    int
}

const runMax = 4096

func (b *tbuf) WriteString(s string) { b.cur = append(b.cur, s...) }

func (b *tbuf) WriteByte(c byte) error {
	b.cur = append(b.cur, c)
	return nil
}

// fill writes n copies of c.
func (b *tbuf) fill(c byte, n int) {
	if n <= runMax {
		for ; n > 0; n-- {
			b.cur = append(b.cur, c)
		}
		return
	}
	b.cut()
	b.pieces = append(b.pieces, tpiece{fill: c, n: n})
}

// cut ends the text in cur as a piece.
func (b *tbuf) cut() {
	if len(b.cur) > 0 {
		b.pieces = append(b.pieces, tpiece{text: string(b.cur)})
		b.cur = b.cur[:0]
	}
}

// Len is the number of bytes written.
func (b *tbuf) Len() int {
	n := len(b.cur)
	for _, p := range b.pieces {
		n += len(p.text) + p.n
	}
	return n
}

// add writes what s holds.
func (b *tbuf) add(s *tbuf) {
	if len(s.pieces) > 0 {
		b.cut()
		b.pieces = append(b.pieces, s.pieces...)
	}
	b.cur = append(b.cur, s.cur...)
}

// String is what b holds, as one string.
func (b *tbuf) String() string {
	if len(b.pieces) == 0 {
		return string(b.cur)
	}
	out := make([]byte, 0, b.Len())
	for _, p := range b.pieces {
		out = append(out, p.text...)
		for i := 0; i < p.n; i++ {
			out = append(out, p.fill)
		}
	}
	return string(append(out, b.cur...))
}

// reset empties b, keeping its memory.
func (b *tbuf) reset() {
	b.pieces, b.cur = b.pieces[:0], b.cur[:0]
}

// writeTo writes what b holds to w.
func (b *tbuf) writeTo(w *bufio.Writer) {
	for _, p := range b.pieces {
		w.WriteString(p.text)
		writeRun(w, p.fill, p.n)
	}
	w.Write(b.cur)
}

// writeRun writes n copies of c to w, a block at a time.
func writeRun(w *bufio.Writer, c byte, n int) {
	if n <= 0 {
		return
	}
	block := bytes.Repeat([]byte{c}, min(n, runMax))
	for ; n > 0; n -= min(n, len(block)) {
		w.Write(block[:min(n, len(block))])
	}
}
