//go:build unix

package main

// The pseudo-terminal runner. Every differential case that godu runs
// through invoke (grammar_test.go) is, for a fixed share of the cases, run
// a second time with standard error on a pseudo-terminal and the progress
// line forced on from the first instant: it must finish under a timeout,
// leave standard output and the exit status as they were on a pipe, and
// write on the terminal nothing but du's messages once godu's own
// progress frames are taken out.

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/godu-sh/godu/internal/testtree"
)

// ptyTimeout bounds one run on a terminal: a run that hangs fails.
const ptyTimeout = 30 * time.Second

// onTerminal runs name (argv[0] argv0) in dir with standard error on a
// pseudo-terminal, and standard output there too when bothOnTerminal, else
// on a pipe. It returns standard output (pipe), what the terminal received
// with its CR LF made LF again, and the exit status; a run still going
// after ptyTimeout fails the test.
func onTerminal(t testing.TB, dir string, env []string, stdin, argv0, name string, args []string, bothOnTerminal bool) (stdout, terminal string, code int) {
	t.Helper()
	ctl, term := openPTY(t)
	defer ctl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), ptyTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Args[0] = argv0
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Env = append(os.Environ(), "LC_ALL=C", "TZ=UTC", "GORACE=atexit_sleep_ms=0", "GODU_PROGRESS_AFTER=0s")
	cmd.Env = append(cmd.Env, env...)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, term
	if bothOnTerminal {
		cmd.Stdout = term
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	term.Close()
	var got strings.Builder
	done := make(chan struct{})
	go func() {
		io.Copy(&got, ctl) // ends with EIO once the last writer is gone
		close(done)
	}()
	err := cmd.Wait()
	if ctx.Err() != nil {
		t.Fatalf("%s %q on a terminal did not finish in %v", name, args, ptyTimeout)
	}
	<-done
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), strings.ReplaceAll(got.String(), "\r\n", "\n"), code
}

// progressFrame is one drawing of the progress line: the erase sequence
// and a status line, up to the next erase (a frame never holds a newline).
var progressFrame = regexp.MustCompile("\r\x1b\\[K[^\n\r]*?(\r\x1b\\[K|$)")

// withoutFrames takes godu's progress frames and erases out of what a
// terminal received.
func withoutFrames(s string) string {
	for prev := ""; prev != s; {
		prev, s = s, progressFrame.ReplaceAllString(s, "$1")
	}
	return strings.ReplaceAll(s, "\r\x1b[K", "")
}

// ptyShare: one case in ptyShare of invoke's godu runs goes to the
// terminal too.
const ptyShare = 3

var ptyRuns atomic.Int64

// checkOnTerminal runs a case that ran on pipes (res) again with standard
// error on a pseudo-terminal, for one case in ptyShare.
func checkOnTerminal(t *testing.T, dir string, env []string, stdin, name string, args []string, res testtree.Result) {
	t.Helper()
	if !havePTY || ptyRuns.Add(1)%ptyShare != 0 {
		return
	}
	out, term, code := onTerminal(t, dir, env, stdin, "du", name, args, false)
	if out != res.Stdout || code != res.Code || withoutTimes(withoutFrames(term)) != withoutTimes(res.Stderr) {
		t.Errorf("godu %q with standard error on a terminal:\nstdout %q\nterminal %q (without frames %q)\nstatus %d\nwant as on a pipe:\nstdout %q\nstderr %q\nstatus %d",
			args, out, term, withoutFrames(term), code, res.Stdout, res.Stderr, res.Code)
	}
}

// statsTimes are --stats' elapsed time and rate, which differ between any
// two runs.
var statsTimes = regexp.MustCompile(`[0-9]+\.[0-9]{3} s, [0-9,]+ entries/s`)

// withoutTimes is s with --stats' times made equal.
func withoutTimes(s string) string { return statsTimes.ReplaceAllString(s, "T s, R entries/s") }
