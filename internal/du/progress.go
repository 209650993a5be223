package du

// What godu writes to stderr beside du's output: the progress line (on a
// terminal, or with --progress) and the --stats summary.

import (
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/godu-sh/godu/internal/walk"
)

// comma is n with its digits in groups of three, as go-humanize's Comma
// writes it. (That package compiles regular expressions in its init, a
// tenth of godu's start-up, for two functions of a few lines.)
func comma(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// iBytes is s bytes in binary units, as go-humanize's IBytes writes it:
// "9 B", "1.5 KiB", "20 KiB".
func iBytes(s uint64) string {
	if s < 10 {
		return fmt.Sprintf("%d B", s)
	}
	sizes := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	e := math.Floor(math.Log(float64(s)) / math.Log(1024))
	val := math.Floor(float64(s)/math.Pow(1024, e)*10+0.5) / 10
	f := "%.0f %s"
	if val < 10 {
		f = "%.1f %s"
	}
	return fmt.Sprintf(f, val, sizes[int(e)])
}

// printStats writes --stats' summary.
func printStats(w io.Writer, prog string, s walk.Stats, elapsed time.Duration, jobs int) {
	entries := s.Dirs + s.Files
	rate := float64(entries) / elapsed.Seconds()
	fmt.Fprintf(w, "%s: %s directories, %s files, %s hard links counted once, %s errors, %.3f s, %s entries/s, %d workers\n",
		prog, comma(s.Dirs), comma(s.Files), comma(s.LinksSkipped),
		comma(s.Errors), elapsed.Seconds(), comma(int64(rate)), jobs)
}

// progress is the self-rewriting status line on a terminal's stderr.
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	fd      int // w's descriptor: its width and foreground group
	width   int
	shown   bool
	midLine bool // the output on the same terminal has not ended its line
	stop    chan struct{}
	done    chan struct{}
	walker  *walk.Walker
	started time.Time
	resizes chan os.Signal // SIGWINCH (nil where not watched)
	endings chan os.Signal // the signals that end godu (watchEnd)
	ended   chan struct{}  // watchEnd is over
}

func startProgress(w io.Writer, fd, width int, wk *walk.Walker) *progress {
	p := &progress{w: w, fd: fd, width: width, stop: make(chan struct{}), done: make(chan struct{}), walker: wk, started: time.Now()}
	delay := 500 * time.Millisecond // nothing for short scans
	if d, err := time.ParseDuration(os.Getenv("GODU_PROGRESS_AFTER")); err == nil {
		delay = d // for tests
	}
	// The signals are watched before anything is drawn, each kind on a
	// channel of its own (resizes never crowd out an ending signal).
	p.ended = make(chan struct{})
	if resize, ending := progressSignals(); resize != nil {
		p.resizes = make(chan os.Signal, 1)
		signal.Notify(p.resizes, resize)
		if len(ending) > 0 {
			p.endings = make(chan os.Signal, 1)
			signal.Notify(p.endings, ending...)
		}
	}
	go p.watchEnd()
	if delay <= 0 {
		p.draw() // at once, however short the scan (tests)
	}
	every := 200 * time.Millisecond
	if d, err := time.ParseDuration(os.Getenv("GODU_PROGRESS_EVERY")); err == nil && d > 0 {
		every = d // for tests
	}
	go p.run(delay, every)
	return p
}

// run draws the line after delay, then every every, until stop, and
// follows the window's width (SIGWINCH).
func (p *progress) run(delay, every time.Duration) {
	defer close(p.done)
	if p.resizes != nil {
		defer signal.Stop(p.resizes)
	}
	first := time.NewTimer(delay)
	defer first.Stop()
	var tick <-chan time.Time
	for {
		select {
		case <-p.stop:
			return
		case <-first.C:
			t := time.NewTicker(every)
			defer t.Stop()
			tick = t.C
			p.draw()
		case <-tick:
			p.draw()
		case <-p.resizes:
			if width, ok := terminalWidth(p.fd); ok {
				p.mu.Lock()
				p.width = width
				p.mu.Unlock()
			}
		}
	}
}

// watchEnd waits, until stop, for a signal that ends godu (SIGINT,
// SIGTERM, SIGHUP, unless ignored at exec), then erases the line and
// ends godu by it: the runtime's handler would have left the line for
// what the shell prints next to run on from ("…/dir/filerc=124"). It is
// a goroutine of its own that never waits on the line's lock, which a
// write of the output holds for as long as the write blocks, and the
// --files0-from loop while it waits for the next name.
func (p *progress) watchEnd() {
	defer close(p.ended)
	if p.endings == nil {
		return
	}
	select {
	case sig := <-p.endings:
		p.endBy(sig)
	case <-p.stop:
	}
	signal.Stop(p.endings)
	select { // one that came as the line ended still ends godu
	case sig := <-p.endings:
		p.endBy(sig)
	default:
	}
}

// endBy erases the line and ends godu by sig. The lock stays held:
// nothing is drawn or written after the erase. A write of the output
// holds it too (the line erased first, by clear), as does a draw, and
// either may never end (a pipe nobody reads): after a moment godu ends
// without taking it.
func (p *progress) endBy(sig os.Signal) {
	for range 50 {
		if p.mu.TryLock() {
			if p.shown {
				io.WriteString(p.w, "\r\x1b[K")
			}
			break
		}
		time.Sleep(time.Millisecond)
	}
	dieBy(sig)
}

func (p *progress) draw() {
	s := p.walker.Stats()
	n := s.Dirs + s.Files
	el := time.Since(p.started).Seconds()
	line := fmt.Sprintf("%s entries, %s, %s/s, %s", comma(n), iBytes(uint64(s.Blocks)*512),
		comma(int64(float64(n)/el)), TerminalSafe(p.walker.Current()))
	p.mu.Lock()
	line = FitWidth(line, p.width-1)
	if p.midLine || !foreground(p.fd) {
		p.mu.Unlock()
		return
	}
	fmt.Fprintf(p.w, "\r\x1b[K%s", line)
	p.shown = true
	p.mu.Unlock()
}

// clear erases the line, so that a message or a result can be written.
// It returns with the lock held: call release after writing.
func (p *progress) clear() {
	if p == nil {
		return
	}
	p.mu.Lock()
	if p.shown {
		io.WriteString(p.w, "\r\x1b[K")
		p.shown = false
	}
}

func (p *progress) release() {
	if p != nil {
		p.mu.Unlock()
	}
}

// end stops the line for good and erases it.
func (p *progress) end() {
	if p == nil {
		return
	}
	close(p.stop)
	<-p.done
	<-p.ended
	p.clear()
	p.release()
}
