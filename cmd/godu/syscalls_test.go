//go:build unix

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/godu-sh/godu/internal/bulk"
	"github.com/godu-sh/godu/internal/testtree"
)

// openSlack is what a walk may open beyond one descriptor per directory:
// the operand's parent, the runtime's and libc's own files.
const openSlack = 16

// TestSyscallsPerEntry counts, with strace, the calls godu makes on
// every generated shape: exactly one statx per entry and one openat per
// directory (plus openSlack per walk), at any number of workers.
func TestSyscallsPerEntry(t *testing.T) {
	// In parallel with the command's other long tests, none of which runs
	// godu under a descriptor limit: those run serially (before the
	// parallel ones), where no test's descriptor, however opened, is open
	// when godu starts with a few.
	t.Parallel()
	syscallsPerEntry(t, []int{0})
}

// syscallsPerEntry asserts the counts at each descriptor limit (0: the
// inherited one); under a limit, a directory may be reopened once.
func syscallsPerEntry(t *testing.T, limits []int) {
	if onXnu {
		t.Skip("godu_xnu: the counts are Linux's getdents64 and statx; the darwin core's calls are emulated")
	}
	t.Helper()
	if bulk.Variant == "portable" {
		t.Skip("the counts are the Linux reader's (statx, the subtree walk's opens); the portable reader makes fstatat and opens every directory itself")
	}
	if _, err := exec.LookPath("strace"); err != nil {
		t.Skip("strace not installed")
	}
	if err := exec.Command("strace", "-o", "/dev/null", "true").Run(); err != nil {
		t.Skip("strace cannot trace here:", err)
	}
	// snapshot: every file also linked outside (cp -al), more links than
	// one subtree walk's first records hold: a directory that overflowed
	// them was examined twice (+1.5% statx here, +4.8% on deep).
	// filechain: a few subdirectories among many files at every level
	// (passed on before the files are examined).
	shapes := append(testtree.Shapes(), testtree.Shape{Name: "deepchain", Kind: "chain", Size: 3000},
		testtree.Shape{Name: "filechain", Kind: "comb", Size: 60, Files: 40},
		testtree.Shape{Name: "snapshot", Kind: "kary", Size: 4, K: 4, Files: 40, Outside: true})
	for _, s := range shapes {
		t.Run(s.Name, func(t *testing.T) {
			dir := t.TempDir()
			op := testtree.Generate(t, dir, s)
			entries := countFind(t, dir, op)
			dirs := countFind(t, dir, op, "-type", "d")
			for _, run := range []struct {
				jobs int
				args []string
			}{{1, []string{"-s"}}, {16, []string{"-a"}}} {
				jobs, args := run.jobs, run.args
				for _, limit := range limits {
					calls := straceCounts(t, dir, limit, append([]string{fmt.Sprintf("--jobs=%d", jobs)}, append(args, op)...))
					if calls["statx"] != entries {
						t.Errorf("jobs %d %q limit %d: %d statx for %d entries", jobs, args, limit, calls["statx"], entries)
					}
					opens := dirs + openSlack
					if limit > 0 {
						opens += dirs
					}
					if calls["openat"] > opens {
						t.Errorf("jobs %d %q limit %d: %d openat for %d directories", jobs, args, limit, calls["openat"], dirs)
					}
				}
			}
		})
	}
}

// TestSyscallsBigDirs: directories a subtree walk opens and must leave to
// its caller (too big for half its buffer, or more subdirectories than its
// nodes have room for) are handed over open, never opened a second time:
// 20 directories of 700 files (22 KiB of getdents64 records, more than
// half the kernel buffer; more of them than openSlack) two levels below the operand, and
// directories of 300 and 600 subdirectories two levels below it (before:
// 997 openat for 948 directories with -s).
func TestSyscallsBigDirs(t *testing.T) {
	t.Parallel()
	if !straceWorks() {
		t.Skip("strace not installed or cannot trace here")
	}
	if onXnu || bulk.Variant == "portable" {
		t.Skip("the counts are the Linux reader's")
	}
	dir := t.TempDir()
	op := "big"
	root := filepath.Join(dir, op)
	mk := func(p string) {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 20; i++ {
		d := filepath.Join(root, fmt.Sprintf("g%d", i/5), fmt.Sprintf("d%d", i%5))
		mk(d)
		for j := 0; j < 700; j++ {
			if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("file-%05d", j)), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for name, n := range map[string]int{"x": 300, "y": 600} {
		for j := 0; j < n; j++ {
			mk(filepath.Join(root, "w", name, fmt.Sprintf("s%03d", j)))
		}
	}
	entries := countFind(t, dir, op)
	dirs := countFind(t, dir, op, "-type", "d")
	for _, jobs := range []int{1, 16} {
		for _, args := range [][]string{{"-s"}, {"-a"}} {
			calls := straceCounts(t, dir, 0, append([]string{fmt.Sprintf("--jobs=%d", jobs)}, append(args, op)...))
			if calls["statx"] != entries {
				t.Errorf("jobs %d %q: %d statx for %d entries", jobs, args, calls["statx"], entries)
			}
			if calls["openat"] > dirs+openSlack {
				t.Errorf("jobs %d %q: %d openat for %d directories", jobs, args, calls["openat"], dirs)
			}
		}
	}
}

// countFind counts the paths find finds below and including op (a byte
// each: the paths of a deep chain of long names are gigabytes).
func countFind(t *testing.T, dir, op string, preds ...string) int {
	t.Helper()
	cmd := exec.Command("find", append(append([]string{op}, preds...), "-printf", ".")...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	return len(out)
}

var straceLine = regexp.MustCompile(`(?m)^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)\s*$`)

// straceCounts runs godu under strace -c -f, with at most limit open
// descriptors when limit is not 0, and returns its call counts.
func straceCounts(t *testing.T, dir string, limit int, args []string) map[string]int {
	t.Helper()
	trace := append([]string{"strace", "--seccomp-bpf", "-f", "-c", "-e", "trace=openat,statx,getdents64", "-o", "/dev/stderr", godu}, args...)
	if limit > 0 {
		trace = append([]string{"-c", fmt.Sprintf(`ulimit -n %d && exec "$@"`, limit), "sh"}, trace...)
	} else {
		trace = append([]string{"-c", `exec "$@"`, "sh"}, trace...)
	}
	r := testtree.Run(t, dir, nil, "sh", trace...)
	if r.Code != 0 {
		t.Fatalf("godu %q: exit %d: %s", args, r.Code, r.Stderr)
	}
	calls := map[string]int{}
	for _, m := range straceLine.FindAllStringSubmatch(r.Stderr, -1) {
		n, _ := strconv.Atoi(m[1])
		calls[m[2]] = n
	}
	if len(calls) == 0 {
		t.Fatalf("no strace summary in %q", r.Stderr)
	}
	return calls
}

// straceWorks reports whether strace is installed and may trace here.
func straceWorks() bool {
	if _, err := exec.LookPath("strace"); err != nil {
		return false
	}
	return exec.Command("strace", "-o", "/dev/null", "true").Run() == nil
}

// straceFailed matches an strace -c line with its errors column: calls,
// errors, name.
var straceFailed = regexp.MustCompile(`(?m)^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(\d+)\s+(\w+)\s*$`)

// failedOpens runs godu as cred under strace -c -f and returns how many
// of its openat calls failed.
func failedOpens(t *testing.T, dir string, cred *syscall.Credential, args ...string) int {
	t.Helper()
	trace := append([]string{"-c", `exec "$@"`, "sh", "strace", "--seccomp-bpf", "-f", "-c", "-e", "trace=openat", godu}, args...)
	r := testtree.Run(t, dir, cred, "sh", trace...)
	if !strings.Contains(r.Stderr, "openat") {
		t.Fatalf("godu %q: exit %d, no strace summary: %s", args, r.Code, r.Stderr)
	}
	for _, m := range straceFailed.FindAllStringSubmatch(r.Stderr, -1) {
		if m[3] == "openat" {
			n, _ := strconv.Atoi(m[2])
			return n
		}
	}
	return 0
}

// TestSyscallsUnreadable: a directory that cannot be opened is tried
// once, as du tries it. The subtree walk that fails to open it leaves it
// to its caller with the error, which reports it without opening it again
// (before: 195 failed openat for 100 unreadable directories, du 100).
func TestSyscallsUnreadable(t *testing.T) {
	t.Parallel()
	cred := nobody(t)
	if !straceWorks() {
		t.Skip("strace not installed or cannot trace here")
	}
	if onXnu || bulk.Variant == "portable" {
		t.Skip("the counts are the Linux reader's")
	}
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	const locked = 40
	for i := 0; i < locked; i++ {
		p := filepath.Join(dir, "u", fmt.Sprintf("a%d", i%4), fmt.Sprintf("b%d", i/4))
		for _, sub := range []string{"locked", "ok"} {
			if err := os.MkdirAll(filepath.Join(p, sub), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(p, sub, "f"), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		os.Chmod(filepath.Join(p, "locked"), 0o700)
	}
	os.Mkdir(empty, 0o755)
	openUp(t, filepath.Join(dir, "u"))
	base := failedOpens(t, dir, cred, "-s", "empty") // the program's own
	for _, jobs := range []string{"--jobs=1", "--jobs=16"} {
		for _, args := range [][]string{{"-s"}, {"-a"}} { // (-a reads every directory itself)
			all := append([]string{jobs}, append(args, "u")...)
			if got := failedOpens(t, dir, cred, all...) - base; got != locked {
				t.Errorf("%q: %d failed openat for %d unreadable directories", all, got, locked)
			}
		}
	}
}
