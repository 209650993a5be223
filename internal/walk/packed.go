package walk

import (
	"encoding/binary"

	"github.com/godu-sh/godu/internal/bulk"
)

// packed holds the listed files of one directory for the stream: each
// file its name's length and name, blocks, bytes and, with a time, the
// time, as varints, then a byte of flags (fileFlags), in chunks that never move (no copy as a directory of
// a million files grows), from 1 KiB doubling up to chunkSize. A file is found by its ref:
// chunk index << chunkBits | offset.
type packed struct {
	chunks [][]byte
	refs   []uint32 // one per file, in the order they came; sorted later
}

const (
	chunkBits = 16
	chunkSize = 1 << chunkBits
	// maxRecord bounds one file's record: a name (NAME_MAX is 255 bytes on
	// Linux, 1023 bytes of UTF-8 on macOS) and four varints.
	maxRecord = 1024 + 4*binary.MaxVarintLen64
)

// Flags of a listed file.
const (
	flagNotReg    = 1 << iota // neither a regular file nor a directory
	flagReadError             // could not be examined: not counted
	flagPattern               // left out by --exclude
	flagOtherFS               // left out by -x
	flagLeftOut   = flagReadError | flagPattern | flagOtherFS
)

func fileFlags(rec *bulk.Record) uint8 {
	if rec.Type != bulk.Regular {
		return flagNotReg
	}
	return 0
}

// add packs a file, returning the bytes it takes.
func (p *packed) add(name []byte, t Totals, withTime bool, flags uint8) int {
	n := len(p.chunks)
	if n == 0 || len(p.chunks[n-1])+len(name)+4*binary.MaxVarintLen64 > cap(p.chunks[n-1]) {
		size := 1024 // a small directory takes little; a big one chunks up to chunkSize
		if n > 0 {
			size = min(2*cap(p.chunks[n-1]), chunkSize)
		}
		p.chunks = append(p.chunks, make([]byte, 0, max(size, maxRecord)))
		n++
	}
	c := p.chunks[n-1]
	off := len(c)
	c = binary.AppendUvarint(c, uint64(len(name)))
	c = append(c, name...)
	c = binary.AppendUvarint(c, uint64(t.Blocks))
	c = binary.AppendUvarint(c, uint64(t.Bytes))
	if withTime {
		c = binary.AppendVarint(c, t.Time)
	}
	c = append(c, flags)
	p.chunks[n-1] = c
	p.refs = append(p.refs, uint32(n-1)<<chunkBits|uint32(off))
	return len(c) - off + 4
}

func (p *packed) record(ref uint32) []byte {
	return p.chunks[ref>>chunkBits][ref&(chunkSize-1):]
}

// name is the name of the file at ref.
func (p *packed) name(ref uint32) []byte {
	b := p.record(ref)
	n, k := binary.Uvarint(b)
	return b[k : k+int(n)]
}

// file reads the file at ref, and the bytes it takes.
func (p *packed) file(ref uint32, withTime bool) (name []byte, t Totals, flags uint8, size int) {
	b := p.record(ref)
	n, k := binary.Uvarint(b)
	pos := k
	name = b[pos : pos+int(n)]
	pos += int(n)
	blocks, k := binary.Uvarint(b[pos:])
	pos += k
	bytes, k := binary.Uvarint(b[pos:])
	pos += k
	t = Totals{Blocks: int64(blocks), Bytes: int64(bytes), Inodes: 1} // no time: 0, as entryTotals gives
	if withTime {
		tm, k := binary.Varint(b[pos:])
		pos += k
		t.Time = tm
	}
	flags = b[pos]
	if flags&flagLeftOut != 0 {
		t.Inodes = 0
	}
	return name, t, flags, pos + 1 + 4
}
