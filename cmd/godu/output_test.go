//go:build unix

package main

import (
	"math/rand"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/godu-sh/godu/internal/testtree"
)

// Output is data: godu reports output it could not write as du does, with
// du's message and exit status, on every way standard output can fail.

// outputSink is one way standard output fails.
type outputSink struct {
	name string
	// shell wraps the command: "$0" "$@" is the program and its
	// arguments, run as du.
	shell string
	// brokenPipe gives the command a pipe whose reader is gone.
	brokenPipe bool
}

var outputSinks = []outputSink{
	{name: "closed", shell: `exec -a du "$0" "$@" >&-`},
	{name: "full", shell: `exec -a du "$0" "$@" >/dev/full`},
	// Open, but for reading: each write fails with EBADF, the final
	// close does not, and du names no error.
	{name: "read-only", shell: `exec -a du "$0" "$@" 1</dev/null`},
	{name: "broken pipe, SIGPIPE ignored", shell: `trap '' PIPE; exec -a du "$0" "$@"`, brokenPipe: true},
	{name: "broken pipe", shell: `exec -a du "$0" "$@"`, brokenPipe: true},
}

func runSink(t *testing.T, dir string, s outputSink, prog string, args []string) testtree.Result {
	t.Helper()
	cmd := exec.Command("bash", append([]string{"-c", s.shell, prog}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LC_ALL=C", "TZ=UTC", "GORACE=atexit_sleep_ms=0")
	if s.brokenPipe {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
		defer w.Close()
		cmd.Stdout = w
	}
	return runCaptured(t, cmd)
}

// TestOutputFailure: generated du command lines, each with its standard
// output closed, on a full device, and on a pipe with no reader (SIGPIPE
// ignored and not): godu's messages and status are du's.
func TestOutputFailure(t *testing.T) {
	needDu(t)
	root := t.TempDir()
	testtree.Build(t, root, map[string]string{"d/a": "file:5000", "d/e/b": "file:100", "f": "file:3000"})
	opts := [][]string{{"-s"}, {"-a"}, {"-0"}, {"-c"}, {"-h"}, {"-d", "1"}, {"--inodes"}, {"-S"}, {"-k"}, {"--time"}, {"-l"}, {"-x"}}
	rng := rand.New(rand.NewSource(20261122 + seedOffset()))
	for i := 0; i < 24; i++ {
		var args []string
		for _, o := range opts {
			if rng.Intn(4) == 0 {
				args = append(args, o...)
			}
		}
		if len(args) >= 2 && args[0] == "-s" && contains(args, "-a") {
			continue // a usage error, which writes nothing
		}
		args = append(args, [][]string{{"d"}, {"d", "f"}, {"."}, {"f", "missing"}}[rng.Intn(4)]...)
		compareSinks(t, root, args)
	}
	// --help and --version print too: their texts differ from du's, but
	// a failed write fails as du's does.
	for _, args := range [][]string{{"--version"}, {"--help"}, {"-s", "--version", "d"}} {
		compareSinks(t, root, args)
	}
}

// compareSinks runs du and godu with args, standard output on each of
// outputSinks, and compares their messages and exit status.
func compareSinks(t *testing.T, root string, args []string) {
	t.Helper()
	for _, s := range outputSinks {
		want := runSink(t, root, s, "du", args)
		got := runSink(t, root, s, godu, args)
		if got != want {
			t.Errorf("%s, %q:\ngodu %q, status %d\ndu   %q, status %d", s.name, args, got.Stderr, got.Code, want.Stderr, want.Code)
		}
	}
}

// TestGoduOutputFailure: godu's own formats (--json, the ncdu export to
// standard output) fail as du's lines do.
func TestGoduOutputFailure(t *testing.T) {
	root := t.TempDir()
	testtree.Build(t, root, map[string]string{"d/a": "file:5000"})
	for _, args := range [][]string{{"--json", "d"}, {"--json", "-a", "d"}, {"--ncdu-export=-", "d"}, {"-o", "-", "d"}, {"--stats", "-s", "d"}} {
		for _, s := range outputSinks {
			got := runSink(t, root, s, godu, args)
			want := "du: write error\n"
			if s.name == "closed" {
				want = "du: write error: Bad file descriptor\n"
			}
			if s.name == "broken pipe" {
				if got.Code != 128+13 && got.Code != -1 {
					t.Errorf("%s, %q: status %d, want death by SIGPIPE as du's", s.name, args, got.Code)
				}
				continue
			}
			if !strings.HasSuffix(got.Stderr, want) || got.Code != 1 {
				t.Errorf("%s, %q: %q, status %d; want %q, status 1", s.name, args, got.Stderr, got.Code, want)
			}
		}
	}
}

// TestClosedInput: "-" of --files0-from and --exclude-from read a closed
// standard input as du does.
func TestClosedInput(t *testing.T) {
	needDu(t)
	root := t.TempDir()
	testtree.Build(t, root, map[string]string{"d/a": "file:5000"})
	// A file that cannot be opened: du reopens its closed standard input
	// on it, and tells the EBADF of closing descriptor 0 (freopen).
	for _, args := range [][]string{{"--files0-from=-"}, {"-X", "-", "d"}, {"--exclude-from=-", "-s", "d"}, {"--files0-from", "-", "-c"},
		{"--files0-from=missing"}, {"--files0-from=d"}, {"-X", "missing", "d"}} {
		s := outputSink{name: "stdin closed", shell: `exec -a du "$0" "$@" <&-`}
		want := runSink(t, root, s, "du", args)
		got := runSink(t, root, s, godu, args)
		if got != want {
			t.Errorf("%q with standard input closed:\ngodu %q, status %d\ndu   %q, status %d", args, got.Stderr, got.Code, want.Stderr, want.Code)
		}
	}
}

// TestErrorOutputFailure: a message godu could not write (standard error
// closed, or on a full device) makes its status 1, as du's: du checks its
// standard error at exit and fails when a write to it failed, even where
// the message was only a warning or came before --help.
func TestErrorOutputFailure(t *testing.T) {
	needDu(t)
	root := t.TempDir()
	testtree.Build(t, root, map[string]string{"d/a": "file:5000", "f": "file:3000"})
	sinks := []outputSink{
		{name: "standard error closed", shell: `exec -a du "$0" "$@" 2>&-`},
		{name: "standard error full", shell: `exec -a du "$0" "$@" 2>/dev/full`},
		{name: "standard error full, standard output closed", shell: `exec -a du "$0" "$@" 2>/dev/full >&-`},
	}
	for _, args := range [][]string{
		{"-s", "-d0", "d"},             // a warning, status 0 otherwise
		{"--apparent-siz=x", "--help"}, // an error, then --help
		{"--bogus"},                    // a usage error
		{"d", "missing"},               // an error during the walk
		{"-s", "d"},                    // nothing written to standard error
		{"--help"},
	} {
		for _, s := range sinks {
			want := runSink(t, root, s, "du", args)
			got := runSink(t, root, s, godu, args)
			if args[len(args)-1] == "--help" { // the texts differ
				got.Stdout, want.Stdout = "", ""
			}
			if got != want {
				t.Errorf("%s, %q:\ngodu %q %q, status %d\ndu   %q %q, status %d", s.name, args, got.Stdout, got.Stderr, got.Code, want.Stdout, want.Stderr, want.Code)
			}
		}
	}
}
