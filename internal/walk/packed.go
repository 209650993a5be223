package walk

import (
	"bytes"
	"encoding/binary"

	"github.com/godu-sh/godu/internal/bulk"
)

// packed holds the listed files of one directory for the stream. Each
// file is a record: its name's length and name, blocks, bytes and, with a
// time, the time, as varints, then a byte of flags (fileFlags). Records
// sit in chunks that never move (no copy as a directory of a million files
// grows), from 1 KiB doubling up to chunkSize, each found by its ref:
// chunk index << chunkBits | offset. Past spillAt bytes, the records go,
// sorted, to the spill file as a run (spill.go); the stream then merges
// the runs and what is in memory by name.
type packed struct {
	chunks   [][]byte
	refs     []uint32 // one per file in memory; sorted once listed
	inMemory int      // bytes of records in chunks
	alloc    int      // bytes of chunks and refs, for the stream's held budget
	runs     []*spillRun
	fi       int // the next ref to hand out
}

const (
	chunkBits = 16
	chunkSize = 1 << chunkBits
	// maxRecord bounds one file's record: a name (NAME_MAX is 255 bytes on
	// Linux, 1023 bytes of UTF-8 on macOS), four varints and the flags.
	maxRecord = 1024 + 4*binary.MaxVarintLen64 + 1
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

// add packs a file, returning the bytes it newly takes in memory.
func (p *packed) add(name []byte, t Totals, withTime bool, flags uint8) int {
	was := p.alloc
	n := len(p.chunks)
	if n == 0 || len(p.chunks[n-1])+len(name)+maxRecord-1024 > cap(p.chunks[n-1]) {
		size := 1024 // a small directory takes little; a big one chunks up to chunkSize
		if n > 0 {
			size = min(2*cap(p.chunks[n-1]), chunkSize)
		}
		p.chunks = append(p.chunks, make([]byte, 0, max(size, len(name)+maxRecord)))
		p.alloc += cap(p.chunks[n])
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
	p.inMemory += len(c) - off + 4
	p.alloc += 4
	return p.alloc - was
}

func (p *packed) record(ref uint32) []byte {
	return p.chunks[ref>>chunkBits][ref&(chunkSize-1):]
}

// recordName is the name in the record at the start of b.
func recordName(b []byte) []byte {
	n, k := binary.Uvarint(b)
	return b[k : k+int(n)]
}

// decodeRecord reads the record at the start of b; size is its length.
func decodeRecord(b []byte, withTime bool) (name []byte, t Totals, flags uint8, size int) {
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
	return name, t, flags, pos + 1
}

// head is the next file in name order among the memory's and the runs'
// (src -1 for memory, else the run's index); ok is false when none is.
func (p *packed) head() (rec []byte, src int, ok bool) {
	src = -2
	if p.fi < len(p.refs) {
		rec, src = p.record(p.refs[p.fi]), -1
	}
	for i, r := range p.runs {
		if r.head != nil && (src == -2 || bytes.Compare(recordName(r.head), recordName(rec)) < 0) {
			rec, src = r.head, i
		}
	}
	return rec, src, src != -2
}

// advance moves past the head, from src.
func (p *packed) advance(src int, withTime bool) error {
	if src < 0 {
		p.fi++
		return nil
	}
	err := p.runs[src].next(withTime)
	if err != nil {
		p.runs[src].head = nil
	}
	return err
}
