//go:build unix

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/godu-sh/godu/internal/testtree"
)

// TestFewDescriptors: under a descriptor limit of 4 to 10, godu never dies
// of a Go runtime error: it prints what it prints without a limit (du's
// output), or reports the descriptors it lacked with status 1, or says in
// one line that it cannot start. (du itself, under such limits, may print
// smaller sums without a message; its unlimited output is the oracle.)
func TestFewDescriptors(t *testing.T) {
	needDu(t)
	root := t.TempDir()
	testtree.Build(t, root, map[string]string{"d/a/b/c/f": "file:100", "d/a/g": "file:10", "d/h/i": "file:1"})
	for n := 4; n <= 10; n++ {
		for _, args := range [][]string{{"-s", "d"}, {"-a", "d"}, {"d", "d/a"}} {
			run := func(prog string, limit int) testtree.Result {
				cmd := exec.Command("bash", append([]string{"-c", "ulimit -n " + strconv.Itoa(limit) + `; exec -a du "$0" "$@"`, prog}, args...)...)
				cmd.Dir = root
				cmd.Env = append(os.Environ(), "LC_ALL=C", "GORACE=atexit_sleep_ms=0")
				res := runCaptured(t, cmd)
				// du's lines come in directory order, godu's in its own.
				res.Stdout = sortedLines(res.Stdout)
				return res
			}
			got, want := run(godu, n), run("du", 1024)
			switch {
			case strings.Contains(got.Stderr, "fatal error") || strings.Contains(got.Stderr, "goroutine") || strings.Contains(got.Stderr, "runtime:"):
				t.Errorf("ulimit -n %d, %q: the Go runtime died:\n%s", n, args, got.Stderr)
			case got == want:
			case got.Code == 1 && got.Stderr == "du: cannot start: Too many open files (the Go runtime needs 2 descriptors beyond 0, 1 and 2)\n":
			case got.Code == 1 && strings.Contains(got.Stderr, "Too many open files"):
				// Degraded as du degrades, with fewer descriptors to
				// spare than du has (the runtime holds two).
			default:
				t.Errorf("ulimit -n %d, %q: godu %+v\ndu %+v", n, args, got, want)
			}
		}
	}
}

// TestDeepChainFewDescriptors: a chain deeper than PATH_MAX under a limit
// that leaves the walk one or two descriptors ends, and soon: with du's
// output, or with a "Too many open files" message and status 1 (du itself
// stops at the second level there). Each directory below the first shed
// one costs a bounded number of tries, not a millisecond's pause per try
// and a thousand tries where no way to open it is left.
func TestDeepChainFewDescriptors(t *testing.T) {
	needDu(t)
	root := t.TempDir()
	testtree.DeepChain(t, root, 2500, "d") // "d/" x 2,500: past PATH_MAX
	want := invoke(t, root, nil, "", "du", []string{"-s", "d"})
	for _, n := range []int{6, 7} {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		cmd := exec.CommandContext(ctx, "bash", "-c", "ulimit -n "+strconv.Itoa(n)+`; exec -a du "$0" -s d`, godu)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "LC_ALL=C", "GORACE=atexit_sleep_ms=0")
		got := runCaptured(t, cmd)
		timedOut := ctx.Err() != nil
		cancel()
		switch {
		case timedOut:
			t.Errorf("ulimit -n %d: godu -s on a 2,500-level chain did not finish in 60 s", n)
		case got == want:
		case got.Code == 1 && strings.Contains(got.Stderr, "Too many open files") && !strings.Contains(got.Stderr, "runtime"):
		default:
			t.Errorf("ulimit -n %d: godu %+v\ndu %+v", n, got, want)
		}
	}
}

// TestChainScarceOpensOnce: under a limit that leaves the walk one
// descriptor beyond the operand's (ulimit -n 7: 0, 1, 2, the runtime's
// two and the operand taken), a subtree walk down a chain runs out at
// every second level, holding its root (the caller's), a child and the
// grandchild it opens. It then keeps the child's descriptor, from which
// the caller opens the grandchild: no directory is reopened from an
// ancestor further up (openat2 beneath it, a walk down, or its path),
// which costs the depth each time and made a chain of 20,000 levels take
// a minute or more. Counted by GODU_SCARCITY_STATS; the output is du's
// without a limit.
func TestChainScarceOpensOnce(t *testing.T) {
	needDu(t)
	dir := t.TempDir()
	op := testtree.Generate(t, dir, testtree.Shape{Kind: "chain", Size: 300, Files: 2, Seed: 1})
	for _, args := range [][]string{{"-s", op}, {op}, {"-a", "-d", "2", op}} {
		want := invoke(t, dir, nil, "", "du", args)
		want.Stdout = sortedLines(want.Stdout) // du's lines in listing order, godu's by name
		stats := filepath.Join(t.TempDir(), "stats")
		cmd := exec.Command("bash", append([]string{"-c", `ulimit -n 7; exec -a du "$0" "$@"`, godu}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "LC_ALL=C", "GORACE=atexit_sleep_ms=0", "GODU_SCARCITY_STATS="+stats)
		got := runCaptured(t, cmd)
		got.Stdout = sortedLines(got.Stdout)
		if got != want {
			t.Errorf("ulimit -n 7, %q: godu %+v\ndu %+v", args, got, want)
		}
		b, err := os.ReadFile(stats)
		if err != nil {
			t.Fatal(err)
		}
		n := scarcityCounts(string(b))
		if far := n["beneath"] + n["walkdown"] + n["bypath"]; far > 2 {
			t.Errorf("ulimit -n 7, %q: %d directories of a 300-level chain reopened from an ancestor further up (%s)", args, far, strings.ReplaceAll(strings.TrimSpace(string(b)), "\n", ", "))
		}
	}
}

// TestCombScarceReopensNear: a comb deeper than PATH_MAX (each level a
// tooth directory beside the next level) under descriptor limits below
// its depth. Every tooth listed after the next level waits while the
// chain below is walked; the walk, short of descriptors, sheds its
// directory and reopens it when the tooth's turn comes. Each reopen must
// cost a bounded number of levels crossed, not the tooth's depth: from
// the directory the worker finished last (its cursor), whatever the
// depth. Reopened from the operand down, 3,000 levels under ulimit -n 16
// crossed millions of levels, and under 7 the walk waited a millisecond
// for most directories. Counted by GODU_SCARCITY_STATS (steps: the
// levels all reopens crossed; beneath, walkdown and bypath: the reopens
// from further up than a parent or a cursor; pauses); the output is du's
// without a limit.
func TestCombScarceReopensNear(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the limits are Linux's: elsewhere the runtime's poller holds one descriptor")
	}
	needDu(t)
	dir := t.TempDir()
	const levels = 3000
	op := testtree.Generate(t, dir, testtree.Shape{Kind: "comb", Size: levels, Seed: 1})
	args := []string{"-s", op}
	want := invoke(t, dir, nil, "", "du", args)
	dirs := 2*levels + 1
	for _, c := range []struct {
		limit int
		jobs  string
	}{{16, "1"}, {7, "1"}, {7, "6"}, {16, "6"}} {
		stats := filepath.Join(t.TempDir(), "stats")
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		cmd := exec.CommandContext(ctx, "bash", append([]string{"-c", "ulimit -n " + strconv.Itoa(c.limit) + `; exec -a du "$0" "$@"`, godu, "-j", c.jobs}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "LC_ALL=C", "GORACE=atexit_sleep_ms=0", "GODU_SCARCITY_STATS="+stats)
		got := runCaptured(t, cmd)
		timedOut := ctx.Err() != nil
		cancel()
		what := fmt.Sprintf("ulimit -n %d, -j %s", c.limit, c.jobs)
		if timedOut || got != want {
			t.Errorf("%s: godu (timed out: %v) %+v\ndu %+v", what, timedOut, got, want)
			continue
		}
		b, err := os.ReadFile(stats)
		if err != nil {
			t.Fatal(err)
		}
		n := scarcityCounts(string(b))
		counts := strings.ReplaceAll(strings.TrimSpace(string(b)), "\n", ", ")
		if c.jobs == "1" && n["reopened"] == 0 { // (several workers may be lucky)
			t.Errorf("%s: nothing was reopened: the limit did not bite (%s)", what, counts)
		}
		// Several workers take the teeth in a looser order (each from
		// the nearest cursor, until one goes on alone), and more so on a
		// busy machine: bounded by the depth, not by a constant.
		perDir := 4
		if c.jobs != "1" {
			perDir = 40
		}
		if n["steps"] > perDir*dirs {
			t.Errorf("%s: reopens crossed %d levels for %d directories, more than %d each (%s)", what, n["steps"], dirs, perDir, counts)
		}
		if far := n["beneath"] + n["walkdown"] + n["bypath"]; c.jobs == "1" && far > 8 {
			t.Errorf("%s: %d reopens from further up than a parent or a cursor (%s)", what, far, counts)
		}
		if n["pauses"] > 8 {
			t.Errorf("%s: %d waits for a descriptor (%s)", what, n["pauses"], counts)
		}
	}
}

// TestNoDescriptorForAnyOperand: under a limit that leaves the walk no
// descriptor at all (ulimit -n 5: 0, 1, 2 and the runtime's two; 6 with
// --files0-from's list open), no operand can be opened, and nothing of
// the walk holds one that waiting would free: each operand is reported
// as out of descriptors, as du reports a directory it cannot open, and
// soon. Waiting a second for each (the walk's patience where other
// workers may close some) made 1,640 operands run for more than 300 s.
// Counted by GODU_SCARCITY_STATS: the pauses of the whole run, against
// one operand's few tries.
func TestNoDescriptorForAnyOperand(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the limits are Linux's: elsewhere the runtime's poller holds one descriptor")
	}
	dir := t.TempDir()
	var ops []string
	for i := range 6 {
		op := fmt.Sprintf("d%d", i)
		testtree.Build(t, dir, map[string]string{op + "/f": "file:10"})
		ops = append(ops, op)
	}
	os.WriteFile(filepath.Join(dir, "list"), []byte(strings.Join(ops, "\x00")+"\x00"), 0o644)
	for _, c := range []struct {
		limit int
		args  []string
	}{{5, ops}, {6, []string{"--files0-from=list"}}} {
		cmd := exec.Command("bash", append([]string{"-c", "ulimit -n " + strconv.Itoa(c.limit) + `; exec -a du "$0" "$@"`, godu}, c.args...)...)
		cmd.Dir = dir
		// The counts to stderr: no descriptor is left to open a file.
		cmd.Env = append(os.Environ(), "LC_ALL=C", "GORACE=atexit_sleep_ms=0", "GODU_SCARCITY_STATS=-")
		got := runCaptured(t, cmd)
		if got.Code != 1 || strings.Count(got.Stderr, "Too many open files") != len(ops) || strings.Contains(got.Stderr, "runtime") {
			t.Errorf("ulimit -n %d, %q: %+v", c.limit, c.args, got)
		}
		n := scarcityCounts(got.Stderr) // (its messages' lines count nothing)
		pauses, ok1 := n["pauses"]
		few, ok2 := n["fewtries"]
		if !ok1 || !ok2 {
			t.Fatalf("ulimit -n %d, %q: no counts on stderr: %q", c.limit, c.args, got.Stderr)
		}
		if pauses > few {
			t.Errorf("ulimit -n %d, %q: %d waits for a descriptor where none could come, for %d operands", c.limit, c.args, pauses, len(ops))
		}
	}
}

// scarcityCounts reads GODU_SCARCITY_STATS's "name value" lines.
func scarcityCounts(text string) map[string]int {
	n := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		if k, v, ok := strings.Cut(line, " "); ok {
			if c, err := strconv.Atoi(v); err == nil {
				n[k] += c
			}
		}
	}
	return n
}
