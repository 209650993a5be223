//go:build unix

package main

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/godu-sh/godu/internal/testtree"
)

// TestStreamOnTerminal: on a pseudo-terminal, lines that leave during the
// walk erase the progress line first: what remains of the captured output
// once the progress frames are taken out is du's output.
func TestStreamOnTerminal(t *testing.T) {
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("script(1) is not installed")
	}
	root := bigTree(t)
	want := testtree.Run(t, root, nil, "du", "-a", "big").Stdout
	cmd := exec.Command("timeout", "60", "script", "-qfec", godu+" -a -j 2 big", "/dev/null")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GODU_PROGRESS_AFTER=0s", "GORACE=atexit_sleep_ms=0", "LC_ALL=C")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("script: %v", err)
	}
	got := strings.ReplaceAll(string(out), "\r\n", "\n")
	if !strings.Contains(got, " entries, ") {
		t.Fatalf("no progress line in %q", got)
	}
	// A frame is the erase sequence and a status line, up to the next
	// erase (a frame never holds a newline).
	frame := regexp.MustCompile("\r\x1b\\[K[^\n\r]*?(\\r\x1b\\[K|$)")
	for prev := ""; prev != got; {
		prev, got = got, frame.ReplaceAllString(got, "$1")
	}
	got = strings.ReplaceAll(got, "\r\x1b[K", "")
	if sortedLines(got) != sortedLines(want) || len(got) != len(want) {
		t.Fatalf("output on a terminal, progress frames removed:\n%q\nwant du's\n%q", got, want)
	}
}
