//go:build unix

package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFiles0FromStreams: du reads --files0-from a name at a time and
// prints each name's line before it reads the next, so a producer that
// waits for the line (a pipe from a program, a terminal) is answered at
// once. godu must too, and give du's lines and messages in du's order:
// each name is written only after the line or message of the one
// before it has come out.
func TestFiles0FromStreams(t *testing.T) {
	root := richTree(t)
	os.WriteFile(filepath.Join(root, "f"), []byte("x"), 0o644)
	// A name, an empty name, '-', a missing name, a file, a directory:
	// each answered by one line on stdout or one message on stderr.
	names := []string{"t/files", "", "-", "missing", "f", "t/nested"}
	var want string
	for i, prog := range []string{"du", godu} {
		got := files0Dialogue(t, root, prog, names)
		got = strings.ReplaceAll(got, "godu:", "du:")
		if i == 0 {
			want = got
			continue
		}
		if got != want {
			t.Errorf("godu, a name at a time:\n%s\ndu:\n%s", got, want)
		}
	}
}

// files0Dialogue runs prog --files0-from=- -c, writes each name only once
// the previous one was answered by a line on stdout or stderr (within
// 10 s), and returns the answers in order, each marked with its stream,
// then the total and the exit status.
func files0Dialogue(t *testing.T, root, prog string, names []string) string {
	t.Helper()
	cmd := exec.Command(prog, "--files0-from=-", "-c")
	cmd.Args[0] = filepath.Base(prog)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "LC_ALL=C", "GORACE=atexit_sleep_ms=0")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW := io.Pipe()
	errR, errW := io.Pipe()
	cmd.Stdout, cmd.Stderr = outW, errW
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	answers := make(chan string, 64)
	read := func(r io.Reader, tag string) {
		s := bufio.NewScanner(r)
		for s.Scan() {
			answers <- tag + s.Text()
		}
	}
	go read(outR, "out: ")
	go read(errR, "err: ")
	var b strings.Builder
	for _, n := range names {
		if _, err := in.Write([]byte(n + "\x00")); err != nil {
			t.Fatalf("%s: writing %q: %v", prog, n, err)
		}
		select {
		case a := <-answers:
			b.WriteString(a + "\n")
		case <-time.After(10 * time.Second):
			in.Close()
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("%s: no answer to %q in 10 s after:\n%s", prog, n, b.String())
		}
	}
	in.Close()
	err = cmd.Wait()
	outW.Close()
	errW.Close()
	for {
		select {
		case a := <-answers:
			b.WriteString(a + "\n")
			continue
		case <-time.After(200 * time.Millisecond):
		}
		break
	}
	code := 0
	if e, ok := err.(*exec.ExitError); ok {
		code = e.ExitCode()
	}
	b.WriteString("exit " + string(rune('0'+code)) + "\n")
	return b.String()
}

// TestFiles0FromWaitsQuietly: while godu waits for --files0-from's next
// name (a person typing at a terminal, a slow producer), the walk is not
// running and there is nothing to report: the progress line is erased
// and not drawn again until the next name comes.
func TestFiles0FromWaitsQuietly(t *testing.T) {
	root := richTree(t)
	cmd := exec.Command(godu, "--progress", "--files0-from=-", "-s")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "LC_ALL=C", "GORACE=atexit_sleep_ms=0", "GODU_PROGRESS_AFTER=0", "GODU_PROGRESS_EVERY=2ms")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	in, out := startPiped(t, cmd)
	in.Write([]byte("t/files\x00"))
	line, err := out.ReadString('\n')
	if err != nil || !strings.HasSuffix(line, "\tt/files\n") {
		t.Fatalf("first line %q, %v", line, err)
	}
	time.Sleep(300 * time.Millisecond) // 150 redraws, were they drawn
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(stderr.String(), "entries,"); n > 20 {
		t.Errorf("%d progress lines drawn, most while waiting for input: %q", n, stderr.String())
	}
}

// startPiped starts cmd with pipes to its standard input and from its
// standard output.
func startPiped(t *testing.T, cmd *exec.Cmd) (in io.WriteCloser, out *bufio.Reader) {
	t.Helper()
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	o, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return in, bufio.NewReader(o)
}
