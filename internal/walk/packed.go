package walk

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"sync"

	"github.com/godu-sh/godu/internal/bulk"
	"github.com/godu-sh/godu/internal/inodeset"
)

// packed holds the listed files of one directory for the stream. Each
// file is a record: its name's length and name, blocks, bytes and, with a
// time, the time, as varints, then a byte of flags (fileFlags), and, for
// a hard-linked file (flagLink), its inode number, device and link count
// as varints (linkID). Records
// sit in chunks that never move (no copy as a directory of a million files
// grows), from firstChunk doubling up to chunkSize, each found by its ref:
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
	// recordExtra bounds what one file's record holds besides its name
	// (NAME_MAX is 255 bytes on Linux, 1023 bytes of UTF-8 on macOS):
	// nine varints (a link's three and an identity's two included), the
	// flags and an identity's type.
	recordExtra = 9*binary.MaxVarintLen64 + 2
	// firstChunk is a directory's first chunk: room for a few files. A
	// directory waiting on the stream with one file listed (each level of
	// a chain whose file sorts after its subdirectory, under -a) holds no
	// more.
	firstChunkBits = 7
	firstChunk     = 1 << firstChunkBits
)

// Flags of a listed file.
const (
	flagNotReg    = 1 << iota // neither a regular file nor a directory
	flagReadError             // could not be examined: not counted
	flagPattern               // left out by --exclude
	flagOtherFS               // left out by -x
	flagLink                  // a hard link, charged by the emitter (stream.go)
	flagBelow                 // a link below the child its record names
	flagID                    // the record ends with the file's identity (fileIdent)
	flagLeftOut   = flagReadError | flagPattern | flagOtherFS
)

// fileIdent is what a record adds with flagID (Options.FileIDs): the
// file's type, device and inode number.
type fileIdent struct {
	typ      bulk.Type
	dev, ino uint64
}

// addIdent ends the record just added (add, addLink) with the file's
// identity.
func (p *packed) addIdent(id fileIdent) {
	n := len(p.chunks) - 1
	c := p.chunks[n]
	was := len(c)
	c = append(c, uint8(id.typ)) // (add left room: recordExtra)
	c = binary.AppendUvarint(c, id.dev)
	c = binary.AppendUvarint(c, id.ino)
	p.chunks[n] = c
	p.inMemory += len(c) - was
}

// linkID is what a hard link's record adds to a file's.
type linkID struct {
	key   inodeset.Key
	nlink uint32
}

func fileFlags(rec *bulk.Record) uint8 {
	if rec.Type != bulk.Regular {
		return flagNotReg
	}
	return 0
}

// packedPool keeps the chunks and refs of directories whose files have
// all been handed out (or spilled), for the next directories to list
// theirs in: a walk then makes new ones only while what waits ahead of
// the stream grows, not for every directory it lists (about 2.5 times
// each directory's files in garbage, a collection every few thousand
// directories). The pool keeps up to poolMax bytes.
type packedPool struct {
	mu     sync.Mutex
	chunks [chunkClasses][][]byte // by capacity: [firstChunk << class, twice that)
	refs   [][]uint32
	bytes  int
}

const (
	chunkClasses = chunkBits - firstChunkBits + 2 // firstChunk to past chunkSize (a long name's)
	poolMax      = 1 << 19
	poolRefsCap  = 4096 // the longest refs kept
)

func chunkClass(size int) int { return bits.Len(uint(size)) - (firstChunkBits + 1) }

// chunk returns an empty chunk of at least need bytes of those of about
// size, or nil.
func (pp *packedPool) chunk(size, need int) []byte {
	k := chunkClass(size)
	if pp == nil || k < 0 || k >= chunkClasses {
		return nil
	}
	pp.mu.Lock()
	defer pp.mu.Unlock()
	n := len(pp.chunks[k])
	if n == 0 || cap(pp.chunks[k][n-1]) < need {
		return nil
	}
	c := pp.chunks[k][n-1]
	pp.chunks[k][n-1] = nil
	pp.chunks[k] = pp.chunks[k][:n-1]
	pp.bytes -= cap(c)
	return c[:0]
}

// takeRefs returns an empty refs slice, or nil.
func (pp *packedPool) takeRefs() []uint32 {
	if pp == nil {
		return nil
	}
	pp.mu.Lock()
	defer pp.mu.Unlock()
	n := len(pp.refs)
	if n == 0 {
		return nil
	}
	r := pp.refs[n-1]
	pp.refs[n-1] = nil
	pp.refs = pp.refs[:n-1]
	pp.bytes -= 4 * cap(r)
	return r[:0]
}

// put keeps p's chunks and refs, as far as poolMax allows; p keeps none.
func (pp *packedPool) put(p *packed) {
	if pp != nil && (len(p.chunks) > 0 || cap(p.refs) > 0) {
		pp.mu.Lock()
		for _, c := range p.chunks {
			k := chunkClass(cap(c))
			if k < 0 || k >= chunkClasses || pp.bytes+cap(c) > poolMax {
				continue
			}
			pp.chunks[k] = append(pp.chunks[k], c[:0])
			pp.bytes += cap(c)
		}
		if r := p.refs; cap(r) > 0 && cap(r) <= poolRefsCap && pp.bytes+4*cap(r) <= poolMax {
			pp.refs = append(pp.refs, r[:0])
			pp.bytes += 4 * cap(r)
		}
		pp.mu.Unlock()
	}
	p.chunks, p.refs = nil, nil
}

// add packs a file, returning the bytes it newly takes in memory; new
// chunks and refs come from pp where it has them (pp may be nil).
func (p *packed) add(pp *packedPool, name []byte, t Totals, withTime bool, flags uint8) int {
	was := p.alloc
	n := len(p.chunks)
	room := len(name) + recordExtra
	if n == 0 || len(p.chunks[n-1])+room > cap(p.chunks[n-1]) {
		size := firstChunk // a small directory takes little; a big one chunks up to chunkSize
		if n > 0 {
			size = min(2*cap(p.chunks[n-1]), chunkSize)
		}
		need := max(size, room)
		c := pp.chunk(size, need)
		if c == nil {
			c = make([]byte, 0, need)
		}
		p.chunks = append(p.chunks, c)
		p.alloc += cap(p.chunks[n])
		n++
	}
	if p.refs == nil {
		p.refs = pp.takeRefs()
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

// addLink packs a hard link (add, then the link's linkID).
func (p *packed) addLink(pp *packedPool, name []byte, t Totals, withTime bool, flags uint8, id linkID) int {
	grew := p.add(pp, name, t, withTime, flags|flagLink)
	n := len(p.chunks) - 1
	c := p.chunks[n]
	was := len(c)
	c = binary.AppendUvarint(c, id.key.Ino) // (add left room: recordExtra)
	c = binary.AppendUvarint(c, id.key.Dev)
	c = binary.AppendUvarint(c, uint64(id.nlink))
	p.chunks[n] = c
	p.inMemory += len(c) - was
	return grew
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
func decodeRecord(b []byte, withTime bool) (name []byte, t Totals, flags uint8, id linkID, ident fileIdent, size int) {
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
	pos++
	if flags&flagLeftOut != 0 {
		t.Inodes = 0
	}
	if flags&flagLink != 0 {
		ino, k := binary.Uvarint(b[pos:])
		pos += k
		dev, k := binary.Uvarint(b[pos:])
		pos += k
		nlink, k := binary.Uvarint(b[pos:])
		pos += k
		id = linkID{inodeset.Key{Dev: dev, Ino: ino}, uint32(nlink)}
	}
	if flags&flagID != 0 {
		ident.typ = bulk.Type(b[pos])
		pos++
		dev, k := binary.Uvarint(b[pos:])
		pos += k
		ino, k := binary.Uvarint(b[pos:])
		pos += k
		ident.dev, ident.ino = dev, ino
	}
	return name, t, flags, id, ident, pos
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
