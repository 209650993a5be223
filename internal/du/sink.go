package du

import (
	"bufio"
	"bytes"
	"io"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/godu-sh/godu/internal/walk"
)

// A sink is one output format: it receives the entries du prints, in du's
// order, as the walk completes them, the errors as they are met, and the
// end of the output. Write errors stay in the bufio.Writer, whose final
// Flush reports them.
type sink interface {
	entry(path string, t walk.Totals, isDir bool)
	fail(e *walk.Error)
	end(total *walk.Totals) // total is nil without -c
}

// lineSink writes du's lines: size, time with --time, path, and a newline
// or, with -0, a NUL.
type lineSink struct {
	o   *Options
	out *bufio.Writer
}

func (s *lineSink) entry(path string, t walk.Totals, _ bool) {
	s.o.line(s.out, s.o.value(t), t.Time, path)
}

func (s *lineSink) fail(*walk.Error) {}

func (s *lineSink) end(total *walk.Totals) {
	if total != nil {
		s.o.line(s.out, s.o.value(*total), total.Time, "total")
	}
}

func (o *Options) line(out *bufio.Writer, v uint64, tm int64, path string) {
	if v == math.MaxUint64 { // du's sums saturate there
		out.WriteString("Infinity")
	} else {
		out.WriteString(o.Block.Format(v))
	}
	out.WriteByte('\t')
	if o.Time != 0 {
		o.zone.formatTo(out, &o.times, o.TimeFormat, tm)
		out.WriteByte('\t')
	}
	out.WriteString(path)
	if o.NullTerminate {
		out.WriteByte(0)
	} else {
		out.WriteByte('\n')
	}
}

// progressWriter erases the progress line (when there is one) before each
// write of the output, which leaves during the walk. On a terminal shared
// with the progress line, output that ends mid-line (-0) holds the
// progress line back, which would otherwise start by erasing that line.
// A document whose writes end between its lines (lines: --json, the
// export, whose last write ends its last line) writes a terminal whole
// lines only, its last partial line waiting for the next write (tail),
// so that the progress line is drawn between its lines.
type progressWriter struct {
	w     io.Writer
	p     *progress
	tty   bool // w is the terminal
	lines bool
	tail  []byte
}

func (pw *progressWriter) Write(b []byte) (int, error) {
	pw.p.clear()
	defer pw.p.release()
	data := b
	if pw.tty && pw.lines {
		if len(pw.tail) > 0 {
			data = append(pw.tail, b...)
		}
		i := bytes.LastIndexByte(data, '\n') + 1
		pw.tail = slices.Clone(data[i:])
		data = data[:i]
	}
	if pw.tty && pw.p != nil && len(data) > 0 {
		pw.p.midLine = data[len(data)-1] != '\n'
	}
	if len(data) == 0 {
		return len(b), nil
	}
	if _, err := pw.w.Write(data); err != nil {
		return 0, err
	}
	return len(b), nil
}

func isTerminal(fd int) bool {
	_, tty := terminalWidth(fd)
	return tty
}

// lineLatency is the longest a printed line waits in the output buffer.
const lineLatency = 10 * time.Millisecond

// flusher decides when buffered output leaves. du writes each line as it
// prints it; godu does so on a terminal, and elsewhere, where a write per
// line would cost more than the walk, writes the first 4 KiB at once
// (`godu -a | head -1` gets its line early), then whenever 64 KiB are
// buffered or a line has waited lineLatency (a slow walk's lines reach a
// pipe as they are printed).
type flusher struct {
	out     *bufio.Writer
	mu      *sync.Mutex // held by callers of printed and flush; the timer takes it
	early   int         // flush once this much is buffered
	timer   *time.Timer
	armed   bool
	stopped bool
}

func newFlusher(out *bufio.Writer, mu *sync.Mutex, terminal bool) *flusher {
	f := &flusher{out: out, mu: mu, early: 4 << 10}
	if terminal {
		f.early = 1
	}
	return f
}

// printed is called, with mu held, after each entry is written.
func (f *flusher) printed() {
	switch n := f.out.Buffered(); {
	case n >= f.early:
		f.out.Flush()
		if f.early > 1 {
			f.early = f.out.Size() + 1 // bufio flushes by itself from now on
		}
	case n > 0 && !f.armed && !f.stopped:
		f.armed = true
		if f.timer == nil {
			f.timer = time.AfterFunc(lineLatency, f.tick)
		} else {
			f.timer.Reset(lineLatency)
		}
	}
}

func (f *flusher) tick() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.armed = false
	if !f.stopped {
		f.out.Flush()
	}
}

// flush writes what is buffered, between walks.
func (f *flusher) flush() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.out.Flush()
}

// stop ends the timer: from then on the caller alone writes and flushes.
func (f *flusher) stop() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stopped = true
	if f.timer != nil {
		f.timer.Stop()
	}
}
