//go:build unix

package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestNoProgressIntoPipe: with stderr on a terminal and stdout a pipe,
// the program reading the pipe may write to the same terminal (godu -a |
// cat, | grep, | less), and the progress line cut its lines: the line is
// drawn only with --progress then. (It was drawn, and a run of godu -a |
// cat on 316,000 entries glued 1-12 of cat's lines to it.)
func TestNoProgressIntoPipe(t *testing.T) {
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("script(1) is not installed")
	}
	root := bigTree(t)
	for _, c := range []struct {
		cmd      string
		progress bool
	}{
		{godu + " -a -j 1 big | cat", false},
		{godu + " -s -j 1 big | cat", false},
		{godu + " -a -j 1 --progress big | cat", true},
		{godu + " -s -j 1 big > out", true},
		{godu + " -s -j 1 big", true},
	} {
		cmd := exec.Command("timeout", "60", "script", "-qfec", c.cmd, "/dev/null")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GODU_PROGRESS_AFTER=0s", "GODU_PROGRESS_EVERY=1ms", "GORACE=atexit_sleep_ms=0", "LC_ALL=C")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", c.cmd, err)
		}
		if got := bytes.Contains(out, []byte(" entries, ")); got != c.progress {
			t.Errorf("%s: progress line %v, want %v: %q", c.cmd, got, c.progress, out[:min(len(out), 300)])
		}
	}
}

// TestProgressErasedOnSignal: SIGINT, SIGTERM and SIGHUP end godu by the
// signal, as they end du, and the progress line is erased first (the
// runtime's handler left it, and the shell's next output ran on from it).
func TestProgressErasedOnSignal(t *testing.T) {
	root := bigTree(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		cmd := exec.Command(godu, "-s", "-j", "1", "--progress", "big")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GODU_PROGRESS_AFTER=0s", "GODU_PROGRESS_EVERY=1ms", "GORACE=atexit_sleep_ms=0", "LC_ALL=C")
		var stdout bytes.Buffer
		cmd.Stdout = &stdout
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var got []byte
		buf := make([]byte, 4096)
		for !bytes.Contains(got, []byte(" entries, ")) { // drawn: the walk runs
			n, err := stderr.Read(buf)
			got = append(got, buf[:n]...)
			if err != nil {
				t.Fatalf("%v before a progress line: %q", err, got)
			}
		}
		cmd.Process.Signal(sig)
		rest, _ := io.ReadAll(stderr)
		got = append(got, rest...)
		if !waitAtMost(cmd, 30*time.Second) {
			t.Fatalf("%v: godu did not end", sig)
		}
		ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
		if !ws.Signaled() || ws.Signal() != sig {
			if ws.Exited() && ws.ExitStatus() == 0 && strings.Contains(stdout.String(), "\tbig") {
				t.Logf("%v: the walk was over first", sig)
				continue
			}
			t.Errorf("%v: ended %v, want by the signal", sig, ws)
		}
		if !bytes.HasSuffix(got, []byte("\r\x1b[K")) {
			t.Errorf("%v: stderr ends %q, not erased", sig, got[max(0, len(got)-80):])
		}
	}
}

// TestSignalEndsWhileLineHeld: a signal that ends godu ends it while the
// progress line's lock is held for long, by the --files0-from loop
// waiting for the next name, and after SIGWINCHes queued first (the
// signals shared one channel with the draws, and a blocked draw, or a
// full channel, kept godu alive until its input ended).
func TestSignalEndsWhileLineHeld(t *testing.T) {
	root := t.TempDir()
	for _, c := range []struct {
		sig    syscall.Signal
		winchs int
	}{{syscall.SIGINT, 0}, {syscall.SIGTERM, 6}, {syscall.SIGHUP, 2}} {
		cmd := exec.Command(godu, "--progress", "-s", "--files0-from=-")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GODU_PROGRESS_AFTER=0s", "GODU_PROGRESS_EVERY=1ms", "GORACE=atexit_sleep_ms=0", "LC_ALL=C")
		in, err := cmd.StdinPipe() // kept open: godu waits for a name
		if err != nil {
			t.Fatal(err)
		}
		defer in.Close()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond)
		for range c.winchs {
			cmd.Process.Signal(syscall.SIGWINCH)
			time.Sleep(10 * time.Millisecond)
		}
		cmd.Process.Signal(c.sig)
		if !waitAtMost(cmd, 20*time.Second) {
			t.Fatalf("%v after %d SIGWINCH: godu still ran 20 s later", c.sig, c.winchs)
		}
		if ws := cmd.ProcessState.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != c.sig {
			t.Errorf("%v: ended %v, want by the signal", c.sig, ws)
		}
	}
}

// waitAtMost waits for cmd to end, for at most d, and reports whether it
// did; if not, it kills cmd and waits for that.
func waitAtMost(cmd *exec.Cmd, d time.Duration) bool {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		return true
	case <-time.After(d):
		cmd.Process.Kill()
		<-done
		return false
	}
}

// TestProgressBetweenDocumentLines: on a terminal, --json and the export
// (whose writes each ended mid-line, and so held the progress line back
// for the whole walk) show the progress line, drawn between the
// document's lines, and the terminal shows the document as written to a
// pipe, the progress line erasing none of it: with the export written to
// the terminal by a path too (-o /dev/stdout, -o /dev/tty), where the
// progress line erased the lines it was drawn over.
func TestProgressBetweenDocumentLines(t *testing.T) {
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("script(1) is not installed")
	}
	root := bigTree(t)
	env := append(os.Environ(), "GODU_PROGRESS_AFTER=0s", "GODU_PROGRESS_EVERY=1ms", "GORACE=atexit_sleep_ms=0", "LC_ALL=C")
	stamp := regexp.MustCompile(`"timestamp":[0-9]+`)
	for _, c := range []struct{ args, piped string }{
		{"--json -a -j 1 big", "--json -a -j 1 big"},
		{"-o - -j 1 big", "-o - -j 1 big"},
		{"-o /dev/stdout -j 1 big", "-o - -j 1 big"},
		{"-o /dev/tty -j 1 big", "-o - -j 1 big"},
	} {
		cmd := exec.Command("timeout", "60", "script", "-qfec", godu+" --progress "+c.args, "/dev/null")
		cmd.Dir, cmd.Env = root, env
		term, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", c.args, err)
		}
		cmd = exec.Command(godu, strings.Fields(c.piped)...)
		cmd.Dir, cmd.Env = root, env
		piped, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s into a pipe: %v", c.piped, err)
		}
		// (A progress line drawn before the document's first write
		// does not count.)
		if first := max(bytes.Index(term, []byte(`"name"`)), bytes.Index(term, []byte(`"path"`))); first < 0 ||
			!bytes.Contains(term[first:], []byte(" entries, ")) {
			t.Errorf("%s: no progress line among the document's lines: %q", c.args, term[:min(len(term), 300)])
		}
		got := bytes.TrimRight(stamp.ReplaceAll(render(term), nil), "\n")
		want := bytes.TrimRight(stamp.ReplaceAll(piped, nil), "\n")
		if !bytes.Equal(got, want) {
			gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
			for i := range max(len(gl), len(wl)) {
				if i >= len(gl) || i >= len(wl) || gl[i] != wl[i] {
					t.Errorf("%s: the terminal shows %d lines, line %d differs from the pipe's %d", c.args, len(gl), i+1, len(wl))
					break
				}
			}
		}
	}
}

// render is what a terminal shows of b: carriage returns, line feeds and
// ESC[K (erase to the line's end) applied, other sequences dropped.
func render(b []byte) []byte {
	lines := [][]byte{nil}
	row, col := 0, 0
	seq := regexp.MustCompile("^\x1b\\[[0-9;?]*[A-Za-z]")
	for i := 0; i < len(b); i++ {
		switch c := b[i]; c {
		case 0x1b:
			if m := seq.Find(b[i:]); m != nil {
				if m[len(m)-1] == 'K' {
					lines[row] = lines[row][:min(col, len(lines[row]))]
				}
				i += len(m) - 1
			}
		case '\r':
			col = 0
		case '\n':
			row++
			if row == len(lines) {
				lines = append(lines, nil)
			}
		default:
			for len(lines[row]) < col {
				lines[row] = append(lines[row], ' ')
			}
			if col < len(lines[row]) {
				lines[row][col] = c
			} else {
				lines[row] = append(lines[row], c)
			}
			col++
		}
	}
	return bytes.Join(lines, []byte("\n"))
}
