package du

import (
	"bufio"
	"io"
	"math"
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
		out.WriteString(Strftime(o.TimeFormat, o.zone.In(time.Unix(0, tm))))
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
// write of the output, which leaves during the walk.
type progressWriter struct {
	w io.Writer
	p *progress
}

func (pw *progressWriter) Write(b []byte) (int, error) {
	pw.p.clear()
	defer pw.p.release()
	return pw.w.Write(b)
}
