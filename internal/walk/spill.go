package walk

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
)

// A directory with more listed files than spillAt bytes of them in memory
// (a directory of a million files under -a) writes them, sorted, as a run
// to the walk's spill file, and the stream merges its runs by name as it
// hands the files out. The spill file is private and nameless: made with
// O_TMPFILE in $TMPDIR where the system has it, else created with mode
// 0600 at a random name and unlinked at once, so that nothing is left
// behind whichever way godu ends, a signal included.
var spillAt = 1 << 20

func init() {
	// For tests of the spill file through the command.
	if n, err := strconv.Atoi(os.Getenv("GODU_SPILL_AT")); err == nil && n > 0 {
		spillAt = n
	}
}

// spillFile is the walk's spill file, made on first use.
type spillFile struct {
	mu   sync.Mutex
	f    *os.File
	err  error // making it or writing to it failed: runs stay in memory
	size int64
}

// failed reports whether the spill file cannot be written: the walk then
// stops trying (each try sorts a directory's files anew).
func (s *spillFile) failed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err != nil
}

// createUnlinked makes a temporary file in dir, mode 0600 at a random
// name, and unlinks it at once.
func createUnlinked(dir string) (*os.File, error) {
	f, err := os.CreateTemp(dir, ".godu-spill-*")
	if err != nil {
		return nil, err
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// write appends b, returning where it went.
func (s *spillFile) write(b []byte) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil && s.err == nil {
		s.f, s.err = openPrivateTemp(os.TempDir())
	}
	if s.err != nil {
		return 0, s.err
	}
	off := s.size
	if _, err := s.f.WriteAt(b, off); err != nil {
		s.err = err // no run is written after a failed one
		return 0, err
	}
	s.size += int64(len(b))
	return off, nil
}

func (s *spillFile) close() {
	if s != nil && s.f != nil {
		s.f.Close()
	}
}

// spillRun is one sorted run of a directory's files in the spill file,
// and, while the stream merges it, the file at its head.
type spillRun struct {
	off, n int64
	rd     *bufio.Reader
	head   []byte // the record at the head, nil once the run is done
}

// spillSorts counts the runs sorted to be spilled (for tests).
var spillSorts atomic.Int64

// spill writes p's files, sorted, as a run; on failure they stay, and
// so do every directory's from then on.
func (p *packed) spill(sf *spillFile, pp *packedPool, withTime bool) {
	if sf.failed() {
		return
	}
	spillSorts.Add(1)
	p.sort()
	var b []byte
	for _, ref := range p.refs {
		b = append(b, p.record(ref)[:p.recordLen(ref, withTime)]...)
	}
	off, err := sf.write(b)
	if err != nil {
		return
	}
	p.runs = append(p.runs, &spillRun{off: off, n: int64(len(b))})
	pp.put(p)
	p.inMemory, p.alloc = 0, 0
}

// recordLen is the length of the record at ref.
func (p *packed) recordLen(ref uint32, withTime bool) int {
	_, _, _, _, _, size := decodeRecord(p.record(ref), withTime)
	return size
}

func (p *packed) sort() {
	slices.SortFunc(p.refs, func(a, b uint32) int { // sort.Slice would allocate a directory
		return bytes.Compare(recordName(p.record(a)), recordName(p.record(b)))
	})
}

// startMerge readies p's runs to be merged with what is in memory.
func (p *packed) startMerge(sf *spillFile, withTime bool) error {
	for _, r := range p.runs {
		r.rd = bufio.NewReaderSize(io.NewSectionReader(sf.f, r.off, r.n), 16<<10)
		if err := r.next(withTime); err != nil {
			return err
		}
	}
	return nil
}

// next reads the run's next record into head (nil at the end).
func (r *spillRun) next(withTime bool) error {
	r.head = r.head[:0]
	n, err := binary.ReadUvarint(r.rd)
	if err == io.EOF {
		r.head = nil
		return nil
	}
	if err != nil {
		return err
	}
	r.head = binary.AppendUvarint(r.head, n)
	at := len(r.head) // the name, read in place: no allocation a file
	r.head = slices.Grow(r.head, int(n))[:at+int(n)]
	if _, err := io.ReadFull(r.rd, r.head[at:]); err != nil {
		return err
	}
	fields := 2
	if withTime {
		fields = 3
	}
	if err := r.copyVarints(fields); err != nil {
		return err
	}
	flags, err := r.rd.ReadByte()
	if err != nil {
		return err
	}
	r.head = append(r.head, flags)
	if flags&flagLink != 0 {
		if err := r.copyVarints(3); err != nil { // linkID
			return err
		}
	}
	if flags&flagID != 0 { // fileIdent: its type, then two varints
		typ, err := r.rd.ReadByte()
		if err != nil {
			return err
		}
		r.head = append(r.head, typ)
		return r.copyVarints(2)
	}
	return nil
}

// copyVarints appends the run's next n varints to head.
func (r *spillRun) copyVarints(n int) error {
	for i := 0; i < n; i++ {
		v, err := binary.ReadUvarint(r.rd) // a Varint is read back as its bits
		if err != nil {
			return err
		}
		r.head = binary.AppendUvarint(r.head, v)
	}
	return nil
}
