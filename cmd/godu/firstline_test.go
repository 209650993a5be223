//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/godu-sh/godu/internal/testtree"
)

// call is one system call of a trace: its time, its name, and for a write
// to standard output the bytes written.
type call struct {
	at   string
	name string
	out  string // write(1, ...): the bytes, unquoted
	size int
}

var shortNul = regexp.MustCompile(`((?:^|[^\\])(?:\\\\)*)\\0([^0-7]|$)`)

var traceLine = regexp.MustCompile(`(?m)^([\d.]+) (\w+)\((.*)\) += (-?\d+)`)

// traceCalls runs godu with argv under strace (through script(1) when
// onTerminal, so that standard output is a terminal) in dir and returns
// its writes to standard output and its statx calls, in order.
func traceCalls(t *testing.T, dir string, onTerminal bool, argv ...string) []call {
	t.Helper()
	if _, err := exec.LookPath("strace"); err != nil {
		t.Skip("strace not installed")
	}
	if err := exec.Command("strace", "-o", "/dev/null", "true").Run(); err != nil {
		t.Skip("strace cannot trace here:", err)
	}
	// One trace file per thread (-ff): no call is split across lines.
	trace := filepath.Join(t.TempDir(), "t")
	line := append([]string{"strace", "--seccomp-bpf", "-ff", "-ttt", "-qq", "-s", "100000", "-e", "trace=write,statx", "-e", "signal=none", "-o", trace, godu}, argv...)
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
		t.Fatalf("%q: %v\n%.2000s", argv, err, out)
	}
	files, _ := filepath.Glob(trace + ".*")
	var calls []call
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range traceLine.FindAllStringSubmatch(string(text), -1) {
			c := call{at: m[1], name: m[2]}
			switch {
			case c.name == "statx":
			case c.name == "write" && strings.HasPrefix(m[3], "1, "):
				c.size, _ = strconv.Atoi(m[4])
				arg := m[3][3:strings.LastIndex(m[3], ", ")]
				// strace writes NUL as \0 when no digit follows; Go
				// reads octal escapes of three digits.
				arg = shortNul.ReplaceAllString(arg, `$1\000$2`)
				arg = shortNul.ReplaceAllString(arg, `$1\000$2`)
				if s, err := strconv.Unquote(arg); err == nil {
					c.out = s
				}
			default:
				continue
			}
			calls = append(calls, c)
		}
	}
	// The times have the same number of digits: as strings they sort.
	sort.SliceStable(calls, func(i, j int) bool { return calls[i].at < calls[j].at })
	return calls
}

func writesOf(calls []call) (w []call) {
	for _, c := range calls {
		if c.name == "write" {
			w = append(w, c)
		}
	}
	return w
}

// firstLineTree holds 4,000 files of long names in t: du -a prints about
// 400 KB, several times the output buffer.
func firstLineTree(t *testing.T) string {
	return filesTree(t, "t", 10, 400, strings.Repeat("n", 80), nil)
}

// TestFirstLinesLeaveEarly: on a pipe, godu's first 4 KiB of lines leave
// as soon as they are printed, not when a 64 KiB buffer is full, so that
// `godu -a | head` sees its first line early; later writes are large.
func TestFirstLinesLeaveEarly(t *testing.T) {
	root := firstLineTree(t)
	for _, args := range [][]string{{"-a"}, {"--json", "-a"}, {"--ncdu-export=-"}} {
		writes := writesOf(traceCalls(t, root, false, append(args, "t")...))
		if len(writes) == 0 {
			t.Fatalf("%q: no write to standard output", args)
		}
		total := 0
		for _, w := range writes {
			total += w.size
		}
		if total < 128<<10 {
			t.Fatalf("%q: %d bytes of output, want more than 128 KiB", args, total)
		}
		if writes[0].size > 8<<10 {
			t.Errorf("%q: first write of %d bytes, want at most 8 KiB (4 KiB and a line)", args, writes[0].size)
		}
		if len(writes) > total/(4<<10)+2 {
			t.Errorf("%q: %d writes for %d bytes: a pipe should get large writes after the first", args, len(writes), total)
		}
	}
}

// TestLinesLeaveWhileWalking: on a pipe, a line printed early in a long
// walk leaves during the walk (it waits at most lineLatency), as du's do,
// however little follows it: the first write comes before the last
// statx.
func TestLinesLeaveWhileWalking(t *testing.T) {
	root := firstLineTree(t)
	os.Mkdir(filepath.Join(root, "t", "a"), 0o755) // before d0 in godu's order
	calls := traceCalls(t, root, false, "-d", "1", "-j", "1", "t")
	writes := writesOf(calls)
	if len(writes) == 0 || !strings.Contains(writes[0].out, "\tt/a\n") {
		t.Fatalf("first writes %+v, want t/a's line first", writes)
	}
	last := ""
	for _, c := range calls {
		if c.name == "statx" {
			last = c.at
		}
	}
	if writes[0].at > last {
		t.Fatalf("a's line left at %s, after the walk's last statx at %s", writes[0].at, last)
	}
}

// TestLinesOnTerminal: on a terminal du writes each line as it prints it;
// so does godu: no write holds more than one line.
func TestLinesOnTerminal(t *testing.T) {
	root := firstLineTree(t)
	for _, args := range [][]string{{"-a"}, {"-a", "-0"}} {
		end := "\n"
		if len(args) > 1 {
			end = "\x00"
		}
		lines := 0
		for _, w := range writesOf(traceCalls(t, root, true, append(args, "t/d3")...)) {
			n := strings.Count(w.out, end)
			if n > 1 || n == 1 && !strings.HasSuffix(w.out, end) {
				t.Fatalf("%q: a write to the terminal of %d lines: %q", args, n, w.out)
			}
			lines += n
		}
		if lines != 401 {
			t.Fatalf("%q: %d lines written, want 401", args, lines)
		}
	}
}

// screen is what a terminal shows of out: carriage return, erase to the
// end of the line and newline, as the progress line uses them.
func screen(out string) string {
	var lines []string
	var cur []rune
	col := 0
	for i := 0; i < len(out); {
		switch {
		case strings.HasPrefix(out[i:], "\x1b[K"):
			cur = cur[:min(col, len(cur))]
			i += 3
			continue
		case out[i] == '\r':
			col = 0
		case out[i] == '\n':
			lines = append(lines, string(cur))
			cur, col = nil, 0
		default:
			if col < len(cur) {
				cur[col] = rune(out[i])
			} else {
				cur = append(cur, rune(out[i]))
			}
			col++
		}
		i++
	}
	return strings.Join(append(lines, string(cur)), "\n")
}

// TestOutputOnTerminalWithProgress: with stdout and stderr on one
// terminal, the progress line, redrawn every millisecond, never erases
// output: formats that leave the cursor mid-line (--json, -0, the ncdu
// export) hold it back until their line ends. What the terminal shows is
// the output godu writes to a file.
func TestOutputOnTerminalWithProgress(t *testing.T) {
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("script(1) is not installed")
	}
	root := firstLineTree(t)
	for _, args := range [][]string{{"--json", "-a"}, {"-a", "-0"}, {"--ncdu-export=-"}, {"-a"}} {
		want := testtree.Run(t, root, nil, godu, append(args, "t")...).Stdout
		if strings.Contains(args[0], "ncdu") {
			// The export's header holds the time of the scan.
			want = regexp.MustCompile(`"timestamp":\d+`).ReplaceAllString(want, `"timestamp":0`)
		}
		cmd := exec.Command("timeout", "60", "script", "-qfec", godu+" "+strings.Join(args, " ")+" t", "/dev/null")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "LC_ALL=C", "GORACE=atexit_sleep_ms=0", "GODU_PROGRESS_AFTER=0s", "GODU_PROGRESS_EVERY=1ms")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		got := screen(string(out))
		if strings.Contains(args[0], "ncdu") {
			got = regexp.MustCompile(`"timestamp":\d+`).ReplaceAllString(got, `"timestamp":0`)
		}
		if strings.TrimRight(got, "\n") != strings.TrimRight(want, "\n") {
			g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
			for i := range min(len(g), len(w)) {
				if g[i] != w[i] {
					t.Fatalf("%q: the terminal shows, at line %d,\n%q\nwhere the output is\n%q", args, i+1, g[i], w[i])
				}
			}
			t.Fatalf("%q: the terminal shows %d lines, the output has %d", args, len(g), len(w))
		}
	}
}
