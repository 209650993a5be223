//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// stdoutWrites runs argv under strace (through script(1) when onTerminal,
// so that standard output is a terminal) in dir and returns the sizes of
// godu's writes to standard output, in order.
func stdoutWrites(t *testing.T, dir string, onTerminal bool, argv ...string) []int {
	t.Helper()
	if _, err := exec.LookPath("strace"); err != nil {
		t.Skip("strace not installed")
	}
	// One trace file per thread (-ff): no call is split across lines.
	traces := t.TempDir()
	trace := filepath.Join(traces, "t")
	line := append([]string{"strace", "-ff", "-ttt", "-qq", "-e", "trace=write", "-e", "signal=none", "-o", trace, godu}, argv...)
	cmd := exec.Command("timeout", append([]string{"60"}, line...)...)
	if onTerminal {
		if _, err := exec.LookPath("script"); err != nil {
			t.Skip("script(1) is not installed")
		}
		cmd = exec.Command("timeout", "60", "script", "-qfec", strings.Join(line, " "), "/dev/null")
	}
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LC_ALL=C", "GORACE=atexit_sleep_ms=0", "GODU_PROGRESS_AFTER=1h")
	if out, err := cmd.CombinedOutput(); err != nil {
		if len(out) > 2000 {
			out = out[:2000]
		}
		t.Fatalf("%q: %v\n%s", argv, err, out)
	}
	files, _ := filepath.Glob(trace + ".*")
	type write struct {
		at   string
		size int
	}
	var writes []write
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range regexp.MustCompile(`(?m)^([\d.]+) write\(1, .*\) = (\d+)$`).FindAllStringSubmatch(string(text), -1) {
			n, _ := strconv.Atoi(m[2])
			writes = append(writes, write{m[1], n})
		}
	}
	if len(writes) == 0 {
		t.Fatalf("%q: no write to standard output in the trace", argv)
	}
	// The times have the same number of digits: as strings they sort.
	sort.SliceStable(writes, func(i, j int) bool { return writes[i].at < writes[j].at })
	sizes := make([]int, len(writes))
	for i, w := range writes {
		sizes[i] = w.size
	}
	return sizes
}

// firstLineTree holds 4,000 files of long names: du -a prints about
// 400 KB, several times the output buffer.
func firstLineTree(t *testing.T) string {
	root := t.TempDir()
	for d := 0; d < 10; d++ {
		dir := filepath.Join(root, "t", fmt.Sprintf("d%d", d))
		os.MkdirAll(dir, 0o755)
		for f := 0; f < 400; f++ {
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s%d", strings.Repeat("n", 80), f)), nil, 0o644)
		}
	}
	return root
}

// TestFirstLinesLeaveEarly: like du's stdio, godu's first lines leave
// once 4 KiB of them are written, not when a 64 KiB buffer is full, so
// that `godu -a | head` sees its first line early; a pipe then gets large
// writes.
func TestFirstLinesLeaveEarly(t *testing.T) {
	root := firstLineTree(t)
	for _, args := range [][]string{{"-a"}, {"--json", "-a"}, {"--ncdu-export=-"}} {
		sizes := stdoutWrites(t, root, false, append(args, "t")...)
		total := 0
		for _, n := range sizes {
			total += n
		}
		if total < 128<<10 {
			t.Fatalf("%q: %d bytes of output, want more than 128 KiB", args, total)
		}
		if sizes[0] > 8<<10 {
			t.Errorf("%q: first write of %d bytes, want at most 8 KiB (4 KiB and a line)", args, sizes[0])
		}
		if len(sizes) > total/(16<<10)+2 {
			t.Errorf("%q: %d writes for %d bytes: a pipe should get large writes after the first", args, len(sizes), total)
		}
	}
}

// TestLinesOnTerminal: on a terminal du's standard output is line
// buffered; so is godu's: each line leaves as it is printed.
func TestLinesOnTerminal(t *testing.T) {
	root := firstLineTree(t)
	sizes := stdoutWrites(t, root, true, "-a", "t/d3")
	if len(sizes) != 401 {
		t.Fatalf("%d writes to the terminal for 401 lines (sizes %v...)", len(sizes), sizes[:min(len(sizes), 5)])
	}
}
