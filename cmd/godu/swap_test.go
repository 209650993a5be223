//go:build linux

package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/godu-sh/godu/internal/testtree"
)

// TestSymlinkSwapUnderScarcity: while godu walks under so few descriptors
// that it sheds directories' descriptors, reopens them from an ancestor by
// openat2 and opens directories by their path from the operand, a helper
// keeps swapping an intermediate directory (op/a/mid), and in turn all of
// mid's subdirectories at once, for symlinks: to a tree outside the
// operand (by an absolute and by a relative target) and to a sibling inside
// it (op/b, which du would never reach through a symlink). The trees the
// symlinks lead to hold the same directory names, so a path resolved
// through a symlink opens; their files are sparse and huge. For every run:
//   - godu names no path that du names in no state of the tree;
//   - its total lies between the least and the greatest of du's totals over
//     the tree's states (in place, moved away, each symlink): an outside or
//     doubly counted file would add a GiB;
//   - it exits 0 or 1, and says nothing but du's "cannot read directory"
//     and "cannot access" messages.
//
// The runs must really go around the shortage (the walk's counters, read
// through GODU_SCARCITY_STATS): descriptors shed, directories reopened
// beneath an ancestor and opened by their path, or the test fails.
func TestSymlinkSwapUnderScarcity(t *testing.T) {
	needDu(t)
	root := t.TempDir()
	const nd, ne = 8, 3 // d00..d07 below mid, e0..e2 below each
	const huge = 1 << 30
	spec := map[string]string{"stash/": "/"}
	for i := 0; i < nd; i++ {
		for j := 0; j < ne; j++ {
			spec[fmt.Sprintf("op/a/mid/d%02d/e%d/f", i, j)] = "file:100"
			spec[fmt.Sprintf("op/b/d%02d/e%d/INSIDE", i, j)] = fmt.Sprintf("sparse:%d", huge)
			spec[fmt.Sprintf("outside/d%02d/e%d/OUTSIDE", i, j)] = fmt.Sprintf("sparse:%d", huge)
		}
	}
	testtree.Build(t, root, spec)
	// What the helper swaps, in turn: mid, an intermediate directory of
	// every path below it; then all of mid's subdirectories at once, which
	// godu opens below mid's descriptor a while after it read mid. Each
	// becomes a symlink to a directory of the same name: outside the
	// operand by an absolute and by a relative path, and inside it (op/b),
	// every other time, since beneath the operand's descriptor only a
	// symlink that stays inside can be followed.
	type swap struct {
		at      string
		targets []string
	}
	outside := filepath.Join(root, "outside")
	groups := [][]swap{{{"op/a/mid", []string{outside, "../b", "../../outside", "../b"}}}, nil}
	for i := 0; i < nd; i++ {
		d := fmt.Sprintf("d%02d", i)
		groups[1] = append(groups[1], swap{"op/a/mid/" + d,
			[]string{filepath.Join(outside, d), "../../b/" + d, "../../../outside/" + d, "../../b/" + d}})
	}
	stashOf := func(sw swap) string { return filepath.Join(root, "stash", filepath.Base(sw.at)) }
	// out moves a group away and puts symlinks to its kth targets (k < 0:
	// none) in its place; back undoes it.
	out := func(g []swap, k int) error {
		for _, sw := range g {
			if err := os.Rename(filepath.Join(root, sw.at), stashOf(sw)); err != nil {
				return err
			}
			if k >= 0 {
				if err := os.Symlink(sw.targets[k%len(sw.targets)], filepath.Join(root, sw.at)); err != nil {
					return err
				}
			}
		}
		return nil
	}
	back := func(g []swap) error {
		for _, sw := range g {
			os.Remove(filepath.Join(root, sw.at))
			if err := os.Rename(stashOf(sw), filepath.Join(root, sw.at)); err != nil {
				return err
			}
		}
		return nil
	}

	// The states of the tree, each measured by du while nothing moves:
	// for each operand, the least and greatest total and every path named.
	operands := []string{"op", "op/a"}
	type bounds struct {
		lo, hi int64
		paths  map[string]bool
	}
	legit := map[string]*bounds{}
	for _, op := range operands {
		legit[op] = &bounds{lo: 1 << 62, paths: map[string]bool{}}
	}
	measure := func(state string) {
		for _, op := range operands {
			r := testtree.Run(t, root, nil, "du", "-ab", op)
			if r.Code != 0 {
				t.Fatalf("du -ab %s (%s): %d %s", op, state, r.Code, r.Stderr)
			}
			lines := strings.Split(strings.TrimSuffix(r.Stdout, "\n"), "\n")
			for _, l := range lines {
				if _, p, ok := strings.Cut(l, "\t"); ok {
					legit[op].paths[p] = true
				}
			}
			// du 9.1 adds directories' st_size to apparent sizes; godu
			// does as 9.2.
			total := duLineSize(t, lines[len(lines)-1]) - testtree.ApparentFix(t, root, []string{op})["total"]
			b := legit[op]
			b.lo, b.hi = min(b.lo, total), max(b.hi, total)
			if state == "in place" {
				g := testtree.Run(t, root, nil, godu, "-sb", op)
				if want := fmt.Sprintf("%d\t%s\n", total, op); g.Stdout != want || g.Code != 0 {
					t.Fatalf("godu -sb %s on a still tree: %q, status %d; du: %q", op, g.Stdout, g.Code, want)
				}
			}
		}
	}
	// One group moved at a time; the walk may see both moved in turn, but
	// all lies below mid, so that mid gone is the least of the states.
	measure("in place")
	for _, g := range groups {
		for k := -1; k < 3; k++ {
			must(t, out(g, k))
			measure(fmt.Sprintf("%s... moved, symlinks %d", g[0].at, k))
			must(t, back(g))
		}
	}
	for _, op := range operands {
		if legit[op].hi-legit[op].lo >= huge/2 {
			t.Fatalf("%s: the states' totals differ by %d: an outside file could hide", op, legit[op].hi-legit[op].lo)
		}
	}

	// The helper: a group in place, then symlinks, for 0.1 to 1 ms each,
	// until stopped; it leaves the tree as it was.
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		rng := rand.New(rand.NewSource(1))
		for k := 0; ; k++ {
			select {
			case <-stop:
				return
			default:
			}
			g := groups[k%2]
			time.Sleep(time.Duration(100+rng.Intn(900)) * time.Microsecond)
			err := out(g, k/2)
			time.Sleep(time.Duration(100+rng.Intn(900)) * time.Microsecond)
			if err = errors.Join(err, back(g)); err != nil {
				t.Error("the helper:", err)
				return
			}
		}
	}()
	defer func() {
		close(stop)
		<-done
	}()

	// The runs, of three kinds, each given a share of the time (about 5 s
	// in all), since their lengths differ between builds. With 6
	// descriptors (4 go to the runtime and the standard streams) the walk
	// opens nearly every directory by its path, about 10 ms each: those
	// runs take op/a, a smaller operand. With 7 it sheds descriptors and
	// reopens directories beneath an ancestor. With no shortage, the
	// core's subtree walk opens nearly every directory soon after it
	// examined it: a narrow window, but short runs.
	type config struct {
		limit int
		args  []string
	}
	kinds := []struct {
		share   float64
		configs []config
	}{
		{0.3, []config{{6, []string{"-ab", "-j", "8", "op/a"}}}},
		{0.3, []config{
			{7, []string{"-ab", "-j", "8", "op"}},
			{7, []string{"-sb", "-j", "8", "op"}},
			{7, []string{"-ab", "-j", "2", "op"}},
		}},
		{0.4, []config{{1024, []string{"-sb", "-j", "1", "op"}}}},
	}
	took := make([]time.Duration, len(kinds))
	turns := make([]int, len(kinds))
	message := regexp.MustCompile(`^du: cannot (read directory|access) '[^']*': (No such file or directory|Too many levels of symbolic links|Not a directory)$`)
	statsFile := filepath.Join(t.TempDir(), "stats")
	stats := map[string]int64{}
	said := map[string]int{} // messages by kind, for the log
	start := time.Now()
	runs := 0
	for ; runs < 300 && (runs < 9 || time.Since(start) < 5*time.Second); runs++ {
		kind := 0 // the kind furthest behind its share
		for k := range kinds {
			if float64(took[k])/kinds[k].share < float64(took[kind])/kinds[kind].share {
				kind = k
			}
		}
		c := kinds[kind].configs[turns[kind]%len(kinds[kind].configs)]
		turns[kind]++
		op := c.args[len(c.args)-1]
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, "sh", append([]string{"-c", fmt.Sprintf(`ulimit -n %d && exec "$0" "$@"`, c.limit), godu}, c.args...)...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "LC_ALL=C", "GORACE=atexit_sleep_ms=0", "GODU_SCARCITY_STATS="+statsFile)
		os.Remove(statsFile)
		began := time.Now()
		r := runCaptured(t, cmd)
		cancel()
		took[kind] += time.Since(began)
		what := fmt.Sprintf("run %d (ulimit -n %d; godu %s)", runs, c.limit, strings.Join(c.args, " "))
		if r.Code != 0 && r.Code != 1 {
			t.Fatalf("%s: status %d\n%s", what, r.Code, r.Stderr)
		}
		for _, l := range strings.Split(strings.TrimSuffix(strings.ReplaceAll(r.Stderr, godu+":", "du:"), "\n"), "\n") {
			m := message.FindStringSubmatch(l)
			if l != "" && m == nil {
				t.Fatalf("%s: a message du would not give: %q", what, l)
			}
			if m != nil {
				said[m[1]+": "+m[2]]++
			}
		}
		lines := strings.Split(strings.TrimSuffix(r.Stdout, "\n"), "\n")
		for _, l := range lines {
			if _, p, ok := strings.Cut(l, "\t"); !ok || !legit[op].paths[p] {
				t.Fatalf("%s: named %q, a path of no state of the tree\n%s", what, l, r.Stderr)
			}
		}
		total := duLineSize(t, lines[len(lines)-1])
		if b := legit[op]; total < b.lo || total > b.hi {
			t.Fatalf("%s: total %d, not within du's %d..%d over the tree's states (a GiB file outside or counted twice: %v)",
				what, total, b.lo, b.hi, total > b.hi+huge/2)
		}
		b, err := os.ReadFile(statsFile)
		if err != nil {
			t.Fatalf("%s: no counts: %v", what, err)
		}
		for k, n := range scarcityCounts(string(b)) {
			stats[k] += int64(n)
		}
	}
	t.Logf("%d runs in %v (by kind: %v); the walk's counts: %v; messages: %v", runs, time.Since(start).Round(time.Millisecond), turns, stats, said)
	for _, k := range []string{"shed", "reopened", "beneath", "bypath"} {
		if stats[k] == 0 {
			t.Errorf("no run reached %q: the test proves nothing of it (counts %v)", k, stats)
		}
	}
}

// duLineSize is the size at the head of one of du's lines.
func duLineSize(t *testing.T, line string) int64 {
	t.Helper()
	s, _, _ := strings.Cut(line, "\t")
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("not a du line: %q", line)
	}
	return n
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestOperandAncestorSwap: the operand's own path is resolved as du
// resolves it, once; but godu, short of descriptors, reopens the operand
// (and opens directories below it by their path from it). A helper keeps
// swapping a directory above the operand (mid, of op/a/mid/d00) for a
// symlink to a tree of the same names outside (under 7 descriptors the
// operand's is shed and the operand reopened again and again). A run may
// read either tree, as du would have at its start, but never parts of
// both: every file it names is of one tree.
func TestOperandAncestorSwap(t *testing.T) {
	needDu(t)
	root := t.TempDir()
	spec := map[string]string{"stash/": "/"}
	// A level below each eNN: workers hold a directory's descriptor while
	// they open its subdirectory, so that 7 descriptors run short in
	// every run and the operand's is shed and reopened (47 shed and 67
	// reopened a run, here). With the files right under eNN, one run in
	// a hundred or fewer reopened anything, by the timing of the helper's
	// swaps: under load, none in 219 runs.
	for j := 0; j < 24; j++ {
		spec[fmt.Sprintf("op/a/mid/d00/e%02d/g/f", j)] = "file:100"
		spec[fmt.Sprintf("outside/d00/e%02d/g/OUTSIDE", j)] = "sparse:1073741824"
	}
	testtree.Build(t, root, spec)
	mid, stash := filepath.Join(root, "op/a/mid"), filepath.Join(root, "stash/mid")
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		rng := rand.New(rand.NewSource(2))
		for {
			select {
			case <-stop:
				return
			default:
			}
			time.Sleep(time.Duration(100+rng.Intn(900)) * time.Microsecond)
			err := os.Rename(mid, stash)
			if err == nil {
				err = os.Symlink(filepath.Join(root, "outside"), mid)
			}
			time.Sleep(time.Duration(100+rng.Intn(900)) * time.Microsecond)
			os.Remove(mid)
			if err = errors.Join(err, os.Rename(stash, mid)); err != nil {
				t.Error("the helper:", err)
				return
			}
		}
	}()
	defer func() {
		close(stop)
		<-done
	}()
	message := regexp.MustCompile(`^du: cannot (read directory|access) '[^']*': (No such file or directory|Too many levels of symbolic links|Not a directory)$`)
	statsFile := filepath.Join(t.TempDir(), "stats")
	stats := map[string]int64{}
	start := time.Now()
	runs := 0
	for ; runs < 300 && (runs < 6 || time.Since(start) < 3*time.Second); runs++ {
		limit := 7 // the operand's descriptor is shed while its subdirectories wait
		cmd := exec.Command("sh", "-c", fmt.Sprintf(`ulimit -n %d && exec "$0" "$@"`, limit), godu, "-ab", "-j", "8", "op/a/mid/d00")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "LC_ALL=C", "GORACE=atexit_sleep_ms=0", "GODU_SCARCITY_STATS="+statsFile)
		os.Remove(statsFile)
		r := runCaptured(t, cmd)
		what := fmt.Sprintf("run %d (ulimit -n %d)", runs, limit)
		if r.Code != 0 && r.Code != 1 {
			t.Fatalf("%s: status %d\n%s", what, r.Code, r.Stderr)
		}
		for _, l := range strings.Split(strings.TrimSuffix(strings.ReplaceAll(r.Stderr, godu+":", "du:"), "\n"), "\n") {
			if l != "" && !message.MatchString(l) {
				t.Fatalf("%s: a message du would not give: %q", what, l)
			}
		}
		if strings.Contains(r.Stdout, "/f\n") && strings.Contains(r.Stdout, "/OUTSIDE\n") {
			t.Fatalf("%s: files of both trees, the operand resolved again mid-walk:\n%s", what, r.Stdout)
		}
		b, _ := os.ReadFile(statsFile)
		for k, n := range scarcityCounts(string(b)) {
			stats[k] += int64(n)
		}
	}
	t.Logf("%d runs in %v; the walk's counts: %v", runs, time.Since(start).Round(time.Millisecond), stats)
	if stats["reopened"] == 0 {
		t.Errorf("no run reopened a directory (counts %v)", stats)
	}
}
