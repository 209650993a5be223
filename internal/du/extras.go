package du

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/godu-sh/godu/internal/walk"
)

// printStats writes --stats' summary.
func printStats(w io.Writer, prog string, s walk.Stats, elapsed time.Duration, jobs int) {
	entries := s.Dirs + s.Files
	rate := float64(entries) / elapsed.Seconds()
	fmt.Fprintf(w, "%s: %s directories, %s files, %s hard links counted once, %s errors, %.3f s, %s entries/s, %d workers\n",
		prog, humanize.Comma(s.Dirs), humanize.Comma(s.Files), humanize.Comma(s.LinksSkipped),
		humanize.Comma(s.Errors), elapsed.Seconds(), humanize.Comma(int64(rate)), jobs)
}

// progress is the self-rewriting status line on a terminal's stderr.
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	width   int
	shown   bool
	stop    chan struct{}
	done    chan struct{}
	walker  *walk.Walker
	started time.Time
}

func startProgress(w io.Writer, width int, wk *walk.Walker) *progress {
	p := &progress{w: w, width: width, stop: make(chan struct{}), done: make(chan struct{}), walker: wk, started: time.Now()}
	delay := 500 * time.Millisecond // nothing for short scans
	if d, err := time.ParseDuration(os.Getenv("GODU_PROGRESS_AFTER")); err == nil {
		delay = d // for tests
	}
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

func (p *progress) run(delay, every time.Duration) {
	defer close(p.done)
	select {
	case <-p.stop:
		return
	case <-time.After(delay):
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		p.draw()
		select {
		case <-p.stop:
			return
		case <-t.C:
		}
	}
}

func (p *progress) draw() {
	s := p.walker.Stats()
	n := s.Dirs + s.Files
	el := time.Since(p.started).Seconds()
	line := fmt.Sprintf("%s entries, %s, %s/s, %s", humanize.Comma(n), humanize.IBytes(uint64(s.Blocks)*512),
		humanize.Comma(int64(float64(n)/el)), TerminalSafe(p.walker.Current()))
	line = FitWidth(line, p.width-1)
	p.mu.Lock()
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
	p.clear()
	p.release()
}
