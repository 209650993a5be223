//go:build unix

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/godu-sh/godu/internal/testtree"
)

// Scenarios after coreutils' tests/du, each compared with the local GNU du.

func TestOptionScenarios(t *testing.T) {
	root := t.TempDir()
	testtree.Build(t, root, map[string]string{
		"ex/a/f.txt":    "file:3000",
		"ex/a/b/g.txt":  "file:9000",
		"ex/a/b/k.dat":  "file:100",
		"ex/c/h.log":    "file:5000",
		"ex/c/lf":       "symlink:../a/f.txt",
		"ex/c/dang":     "symlink:nowhere",
		"ex/c/la":       "symlink:../b-target",
		"ex/b-target/":  "/",
		"ex/b-target/t": "file:7000",
		"ex/d/e/f/g/":   "/",
		"patterns":      "file:0",
	})
	os.WriteFile(filepath.Join(root, "patterns"), []byte("*.log\nk.dat\n"), 0o644)
	old := time.Date(2020, 1, 2, 3, 4, 5, 123456789, time.UTC)
	filepath.Walk(filepath.Join(root, "ex"), func(p string, _ os.FileInfo, _ error) error {
		os.Chtimes(p, old, old) // fixed times, so --time figures are stable
		return nil
	})
	cases := [][]string{
		// exclude
		{"-a", "--exclude=*.txt", "ex"}, {"-a", "--exclude=ex", "ex"}, {"-a", "--exclude=a", "ex"},
		{"-a", "--exclude=ex/a/b", "ex"}, {"-a", "--exclude=*a/b*", "ex"}, {"-a", "-X", "patterns", "ex"},
		{"-a", "--exclude=[ab]", "ex"}, {"-a", "--exclude=?.*", "ex"}, {"-s", "-X", "missing-file", "ex"},
		// separate dirs, thresholds, inodes
		{"-S", "ex"}, {"-S", "-c", "ex"}, {"-Sa", "ex"}, {"-t", "8K", "ex"}, {"-t", "-8K", "ex"},
		{"-a", "-t", "-1", "ex"}, {"--inodes", "ex"}, {"--inodes", "-S", "ex"},
		// time
		{"--time", "ex"}, {"--time", "--time-style=full-iso", "ex"}, {"--time", "--time-style=iso", "-a", "ex"},
		{"--time", "--time-style=+%Y/%m/%d %H.%M.%S", "ex"}, {"--time=ctime", "-s", "ex/d"}, {"--time=foo", "ex"},
		{"--time", "--time-style=bogus", "ex"},
		// symlinks: -P default, -H/-D operand, -L all
		{"-s", "ex/c/la"}, {"-s", "-H", "ex/c/la"}, {"-s", "-D", "ex/c/la"}, {"-s", "-L", "ex/c"},
		{"-s", "-L", "ex/c/dang"}, {"-s", "-H", "ex/c/dang"}, {"-L", "-s", "ex"},
		// the last of -H, -L, -P wins
		{"-s", "-L", "-P", "ex/c"}, {"-s", "-P", "-L", "ex/c"}, {"-s", "-H", "-P", "ex/c/la"},
		{"-s", "-P", "-H", "ex/c/la"}, {"-s", "-LH", "ex/c"}, {"-s", "--dereference", "--no-dereference", "ex/c"},
		// block sizes through the environment
		{"-s", "ex"}, {"-sk", "ex"},
		// trailing slashes
		{"-s", "ex/"}, {"-s", "ex//"}, {"-a", "ex/a//"},
	}
	for _, c := range cases {
		compare(t, root, c[:len(c)-1], c[len(c)-1:])
	}
	// The environment's unit, as du reads it.
	for _, env := range []string{"DU_BLOCK_SIZE=1M", "BLOCK_SIZE=human-readable", "BLOCKSIZE=512", "POSIXLY_CORRECT=1", "DU_BLOCK_SIZE='1"} {
		w := runEnv(t, root, env, "du", "-s", "ex")
		g := runEnv(t, root, env, godu, "-s", "ex")
		if w != g {
			t.Errorf("%s: godu %q, du %q", env, g, w)
		}
	}
}

func runEnv(t *testing.T, dir, env, name string, args ...string) string {
	cmd := exec.Command(name, args...)
	cmd.Args[0] = filepath.Base(name)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LC_ALL=C", "GORACE=atexit_sleep_ms=0", env)
	out, _ := cmd.CombinedOutput()
	return strings.ReplaceAll(string(out), "godu", "du")
}

// TestSymlinkChains: coreutils' long-sloop: long chains of symlinks and
// loops, followed with -L and -H, and the root operands "/" and "./" with
// their trailing slashes (coreutils' slash), kept short by --exclude.
func TestSymlinkChainsAndSlashes(t *testing.T) {
	root := t.TempDir()
	spec := map[string]string{"sl/target/f": "file:6000", "sl/loop1": "symlink:loop2", "sl/loop2": "symlink:loop1"}
	spec["sl/s0"] = "symlink:target"
	for i := 1; i <= 30; i++ {
		spec[fmt.Sprintf("sl/s%d", i)] = fmt.Sprintf("symlink:s%d", i-1)
	}
	testtree.Build(t, root, spec)
	for _, args := range [][]string{
		{"-sL", "sl"}, {"-sL", "sl/s30"}, {"-sH", "sl/s30"}, {"-s", "sl/s30"},
		{"-sL", "sl/loop1"}, {"-s", "sl/loop1"}, {"-a", "sl"},
	} {
		compare(t, root, args[:len(args)-1], args[len(args)-1:])
	}
	// -aL lists the target at the first of the 32 paths to it: du's
	// first in the order its directory lists them, godu's by name
	// (TestFollowAllDeterministic compares the two where those agree).
	// Which path it is is masked here.
	got := testtree.Run(t, root, nil, godu, "-aL", "sl")
	want := testtree.Run(t, root, nil, "du", "-aL", "sl")
	chain := regexp.MustCompile(`sl/(s[0-9]+|target)`)
	if g, w := chain.ReplaceAllString(got.Stdout, "sl/*"), chain.ReplaceAllString(want.Stdout, "sl/*"); g != w || got.Code != want.Code {
		t.Errorf("godu -aL sl: %q (%d), want %q (%d)", got.Stdout, got.Code, want.Stdout, want.Code)
	}
	if !strings.Contains(got.Stdout, "\tsl/s0\n") { // the first by name
		t.Errorf("godu -aL sl: %q, want the target at sl/s0", got.Stdout)
	}
	ex := []string{"-s", "--exclude=/?*", "--exclude=./?*", "--exclude=.//?*"}
	for _, op := range []string{"/", "//", "///", "./", ".//"} {
		compare(t, root, ex, []string{op})
	}
}

func TestFiles0From(t *testing.T) {
	root := richTree(t)
	os.WriteFile(filepath.Join(root, "list"), []byte("t/files\x00t/nested\x00\x00t/files\x00u\x00"), 0o644)
	os.WriteFile(filepath.Join(root, "x:y"), []byte("t/files\x00\x00"), 0o644)
	os.Mkdir(filepath.Join(root, "d:"), 0o755)
	for _, args := range [][]string{
		{"--files0-from=list", "-s"}, {"--files0-from=list", "-c"}, {"--files0-from=list", "t"},
		{"--files0-from=missing"}, {"--files0-from=/dev/null"},
		// An empty F is a file name like another (du cannot open it).
		{"--files0-from="}, {"--files0-from", "", "-s"}, {"--files0-", "", "t"},
		// du's quotef quotes a ':' in these messages' names.
		{"--files0-from=x:y"}, {"-X", "a:b", "t"}, {"--files0-from=d:"},
	} {
		compare(t, root, args, nil)
	}
	// From standard input.
	for _, in := range []string{"t/files\x00u\x00", "t\x00-\x00"} {
		var outs [2]string
		for i, name := range []string{"du", godu} {
			cmd := exec.Command(name, "--files0-from=-", "-s")
			cmd.Args[0] = filepath.Base(name)
			cmd.Dir = root
			cmd.Stdin = strings.NewReader(in)
			cmd.Env = append(os.Environ(), "LC_ALL=C", "GORACE=atexit_sleep_ms=0")
			out, _ := cmd.CombinedOutput()
			outs[i] = strings.ReplaceAll(string(out), "godu", "du")
		}
		if outs[0] != outs[1] {
			t.Errorf("--files0-from=- with %q: godu %q, du %q", in, outs[1], outs[0])
		}
	}
}

// TestDescriptorExhaustion runs godu with 32 descriptors on a tree that
// needs many more at once walked naively: thousands of nested directories.
func TestDescriptorExhaustion(t *testing.T) {
	root := t.TempDir()
	var mk func(dir string, depth, files int)
	mk = func(dir string, depth, files int) {
		os.MkdirAll(dir, 0o755)
		for i := 0; i < files; i++ {
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d", i)), make([]byte, 100), 0o644)
		}
		if depth == 0 {
			return
		}
		for _, c := range []string{"a", "b"} {
			mk(filepath.Join(dir, c), depth-1, files)
		}
	}
	mk(filepath.Join(root, "tree"), 10, 1) // 2,047 directories, 11 levels
	testtree.DeepChain(t, filepath.Join(root, "tree"), 1500, "chain")
	// Forty files a directory: subtree walks end on their budget, often,
	// and leave directories below read ones.
	mk(filepath.Join(root, "bushy"), 9, 40)
	type run struct {
		limit uint64
		args  []string
	}
	// 10: three for the standard streams, two the runtime keeps for the
	// cgroup's CPU limit, two for its poller, three for the walk.
	for _, c := range []run{{32, []string{"-s", "tree"}}, {32, []string{"-s", "-j", "16", "tree"}}, {32, []string{"-s", "bushy"}},
		{32, []string{"-d", "3", "bushy"}}, {32, []string{"bushy"}}, {10, []string{"-s", "bushy"}}, {10, []string{"-s", "tree"}}} {
		args := c.args
		var duArgs []string // du has no -j
		for i := 0; i < len(args); i++ {
			if args[i] == "-j" {
				i++
				continue
			}
			duArgs = append(duArgs, args[i])
		}
		want := testtree.Run(t, root, nil, "du", duArgs...)
		// The limit is the child's alone (a shell's, which it execs).
		sh := fmt.Sprintf(`ulimit -n %d && exec "$0" "$@"`, c.limit)
		got := testtree.Run(t, root, nil, "sh", append([]string{"-c", sh, godu}, args...)...)
		if !reflect.DeepEqual(testtree.Lines(got.Stdout, false), testtree.Lines(want.Stdout, false)) || got.Code != 0 || got.Stderr != "" {
			t.Errorf("godu %q with %d descriptors: %+v, du says %q", args, c.limit, got, want.Stdout)
		}
	}
}

// TestMutation walks a tree that another process keeps changing: no
// crash, no hang, du-style messages only, exit status 0 or 1.
func TestMutation(t *testing.T) {
	root := t.TempDir()
	for i := 0; i < 40; i++ {
		testtree.Build(t, root, map[string]string{fmt.Sprintf("m/d%d/sub/f", i): "file:1000"})
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			d := filepath.Join(root, "m", fmt.Sprintf("d%d", i%40))
			os.RemoveAll(d)
			os.MkdirAll(filepath.Join(d, "sub"), 0o755)
			os.WriteFile(filepath.Join(d, "sub", "f"), make([]byte, 1000), 0o644)
			os.Rename(filepath.Join(root, "m", fmt.Sprintf("d%d", (i+7)%40)), filepath.Join(root, "m", fmt.Sprintf("x%d", i)))
			os.Rename(filepath.Join(root, "m", fmt.Sprintf("x%d", i)), filepath.Join(root, "m", fmt.Sprintf("d%d", (i+7)%40)))
		}
	}()
	deadline := time.Now().Add(2 * time.Second)
	runs := 0
	for time.Now().Before(deadline) {
		res := testtree.Run(t, root, nil, godu, "-a", "m")
		runs++
		if res.Code != 0 && res.Code != 1 {
			t.Fatalf("exit status %d: %s", res.Code, res.Stderr)
		}
		for _, l := range strings.Split(strings.TrimSpace(res.Stderr), "\n") {
			if l != "" && !strings.HasPrefix(l, "godu: cannot read directory '") && !strings.HasPrefix(l, "godu: cannot access '") {
				t.Fatalf("unexpected message %q", l)
			}
		}
	}
	close(stop)
	<-done
	t.Logf("%d walks of a changing tree", runs)
}

// TestRemovedDirectory: a directory removed while it is open lists as
// empty: getdents64 then fails with ENOENT, which the C library's readdir
// takes for the end of the directory, and du with it. The current
// directory removed under the command is the case that can be set up at
// will; a directory removed between its opening and its listing in a
// tree that changes is the same to the reader.
func TestRemovedDirectory(t *testing.T) {
	needDu(t)
	root := t.TempDir()
	for _, args := range [][]string{nil, {"-s", "."}, {"-S", "."}, {"--inodes", "-a", "."}, {"-a", "--time", "."}, {"-sL", "/proc/self/cwd"}, {"-c", ".", "."}} {
		var res [2]testtree.Result
		for i, prog := range []string{"du", godu} {
			d := filepath.Join(root, "gone")
			if err := os.Mkdir(d, 0o755); err != nil {
				t.Fatal(err)
			}
			script := `cd "$1" && rmdir "$1" && shift && exec "$@"`
			res[i] = testtree.Run(t, root, nil, "sh", append([]string{"-c", script, "sh", d, prog}, args...)...)
		}
		res[1].Stderr = strings.ReplaceAll(res[1].Stderr, godu+": ", "du: ")
		if res[0].Stdout != res[1].Stdout || res[0].Stderr != res[1].Stderr || res[0].Code != res[1].Code {
			t.Errorf("%q in a removed directory:\n got %q %q %d\nwant %q %q %d", args,
				res[1].Stdout, res[1].Stderr, res[1].Code, res[0].Stdout, res[0].Stderr, res[0].Code)
		}
	}
}

// TestInterrupt: SIGINT during a long walk ends godu at once, killed by
// the signal, as du is.
func TestInterrupt(t *testing.T) {
	root := t.TempDir()
	testtree.DeepChain(t, root, 3000, "d")
	cmd := exec.Command(godu, "-a", "-j", "1", ".")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	start := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	if time.Since(start) > 2*time.Second {
		t.Errorf("took %v to stop", time.Since(start))
	}
	ee, ok := err.(*exec.ExitError)
	if !ok {
		t.Skipf("finished before the signal: %v", err)
	}
	if ws := ee.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGINT {
		t.Errorf("status %v, want killed by SIGINT", ws)
	}
}

// TestOneFileSystem mounts a tmpfs inside the tree in a private mount
// namespace and compares -x (and its absence) with du; and du's
// bind-mount-dir-cycle case: a directory bind-mounted inside itself.
func TestOneFileSystem(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("mounting needs root")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("unshare is not installed")
	}
	root := t.TempDir()
	testtree.Build(t, root, map[string]string{"x/f": "file:5000", "x/mnt/": "/", "x/other/g": "file:3000",
		"x/deep/er/mnt/": "/", "x/deep/er/f": "file:7000"})
	// Mounts and cycles deeper than the operand's children are met inside
	// a subtree read in one call to the core.
	script := `set -e
mount -t tmpfs -o size=4m tmpfs x/mnt
head -c 100000 /dev/zero > x/mnt/big
mkdir x/mnt/sub
mount -t tmpfs -o size=4m tmpfs x/deep/er/mnt
head -c 50000 /dev/zero > x/deep/er/mnt/f && mkdir x/deep/er/mnt/d && echo x > x/deep/er/mnt/d/g
mkdir -p y/z && echo data > y/f && mount --bind y y/z   # a bind-mount cycle
mkdir -p w/a/b && echo data > w/a/f && mount --bind w w/a/b   # back to the operand, two levels down
mkdir -p v/a/b/c/d && echo data > v/a/b/f && mount --bind v/a v/a/b/c/d   # back to a directory below the operand
for args in "-s x" "-sx x" "-ax x" "-a x" "-sx x/mnt" "-d1 -x x" "-a y" "-s y" "-s w" "-d1 w" "-s v" "-d2 v" "-sx v"; do
  echo "== $args"; du $args 2>&1 | sort; echo "-- godu"; "$GODU" $args 2>&1 | sed 's/^godu/du/' | sort
done`
	cmd := exec.Command("unshare", "-m", "--propagation", "private", "sh", "-c", script)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GODU="+godu, "LC_ALL=C", "GORACE=atexit_sleep_ms=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Skipf("the kernel refused a private mount namespace: %v: %s", err, out)
	}
	blocks := strings.Split(string(out), "== ")[1:]
	if len(blocks) != 13 {
		t.Fatalf("ran %d of 13 comparisons: %s", len(blocks), out)
	}
	for _, block := range blocks {
		want, got, _ := strings.Cut(block, "-- godu\n")
		args, want, _ := strings.Cut(want, "\n")
		if onXnu && strings.ContainsAny(args[len(args)-1:], "ywv") {
			// The darwin walk checks a directory for a cycle by its
			// record's device and inode, which at a mount point are the
			// covered directory's: a bind mount of an ancestor is read
			// once more before the cycle shows. macOS has no bind mounts
			// of its own; nullfs or bindfs would show it.
			t.Logf("godu_xnu: %s: a bind-mount cycle, known to differ on darwin", args)
			continue
		}
		if want != got {
			t.Errorf("%s: godu\n%s\ndu\n%s", args, got, want)
		}
	}
}

// TestSpecialFileSystems walks /proc/self and /sys/kernel: entries vanish
// and some refuse to be read; godu must finish with du's exit status.
func TestSpecialFileSystems(t *testing.T) {
	for _, p := range []string{"/proc/self/fd", "/sys/kernel/mm", "/proc/sys/kernel"} {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		w := testtree.Run(t, "/", nil, "du", "-s", p)
		g := testtree.Run(t, "/", nil, godu, "-s", p)
		if g.Code != w.Code && !strings.HasPrefix(p, "/proc/self") {
			t.Errorf("%s: exit %d (%s), du %d (%s)", p, g.Code, g.Stderr, w.Code, w.Stderr)
		}
		if g.Code > 1 || strings.Contains(g.Stderr, "panic") {
			t.Errorf("%s: %+v", p, g)
		}
	}
}

func TestSparse8GB(t *testing.T) {
	root := t.TempDir()
	if err := testtree.Sparse(filepath.Join(root, "big"), 8<<30); err != nil {
		t.Skip(err)
	}
	for _, args := range [][]string{{"-s"}, {"-sb"}, {"-sh"}, {"--apparent-size", "-sh"}, {"-sk"}} {
		compare(t, root, args, []string{"big"})
	}
}

// TestMillionEntries: one directory of 1,000,000 entries gives du's total
// in bounded memory (summary mode keeps no per-entry state).
func TestMillionEntries(t *testing.T) {
	t.Parallel()
	if onXnu {
		t.Skip("godu_xnu: the peak RSS would measure the getattrlistbulk emulation's own allocations, not godu's")
	}
	// On tmpfs where there is one: creating and removing a million files
	// on ext4 takes a minute and a half, on tmpfs seconds.
	root := t.TempDir()
	if shm, err := os.MkdirTemp("/dev/shm", "godu-million-"); err == nil {
		root = shm
		defer os.RemoveAll(shm)
	}
	dir := filepath.Join(root, "million")
	os.Mkdir(dir, 0o755)
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 1000000; i++ {
		name := fmt.Sprintf("f%07d", i)
		if i%1000 != 0 {
			if err := createEmpty(fd, name); err != nil {
				t.Fatal(err)
			}
			continue
		}
		f, err := unix.Openat(fd, name, unix.O_CREAT|unix.O_WRONLY|unix.O_CLOEXEC, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		unix.Write(f, []byte("x"))
		unix.Close(f)
	}
	unix.Close(fd)
	want := testtree.Run(t, root, nil, "du", "-s", "million")
	out, rss := peakRSS(t, root, godu, "-s", "million")
	if string(out) != want.Stdout {
		t.Fatalf("godu -s: %q; du says %q", out, want.Stdout)
	}
	limit := int64(32 << 10)
	t.Logf("peak RSS of godu -s on 1,000,000 entries: %d KiB", rss)
	if int64(rss) > limit {
		t.Errorf("peak RSS %d KiB, over %d KiB", rss, limit)
	}
}

// peakRSS runs argv in dir and returns its output and its peak RSS in
// KiB, measured by GNU time where there is one. Not from the rusage Go's
// wait returns: Go starts a child with clone(CLONE_VM|CLONE_VFORK), so
// until its exec the child runs in this process's address space, and
// Linux, at exec, keeps the peak RSS of the address space it leaves as
// the new program's (ru_maxrss). The child's figure was then this test
// process's peak whenever that was higher: after TestReopensUnderScarcity
// had held tens of MB of godu -a's output on a 3,000-level chain (and the
// race detector's shadow of it), 615-1,000 MiB for a godu -s that peaks
// at 25. GNU time is a small process that forks: its child leaves only
// its address space. Without it, this process's peak is reset to what it
// holds now (clear_refs), which is still counted.
func peakRSS(t *testing.T, dir string, argv ...string) ([]byte, int64) {
	t.Helper()
	timed := false
	if _, err := os.Stat("/usr/bin/time"); err == nil {
		argv = append([]string{"/usr/bin/time", "-f", "godu-maxrss %M"}, argv...)
		timed = true
	} else {
		debug.FreeOSMemory()
		if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
			t.Logf("cannot reset the peak RSS (%v): the figure is at least this process's peak", err)
		}
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%q: %v: %s", argv, err, stderr.String())
	}
	if !timed {
		return out, cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
	}
	m := regexp.MustCompile(`godu-maxrss (\d+)`).FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("no peak RSS from GNU time in %q", stderr.String())
	}
	rss, _ := strconv.ParseInt(m[1], 10, 64)
	return out, rss
}

// TestExcludeEmptySuffix: du matches a pattern against a path and against
// what follows each '/' in it, the empty rest after a trailing '/'
// included, so an empty pattern excludes an operand given as "t/".
func TestExcludeEmptySuffix(t *testing.T) {
	root := richTree(t)
	for _, args := range [][]string{
		{"--exclude=", "t/"}, {"--exclude=", "./"}, {"--exclude=", "t//"}, {"--exclude=", "t/nested"},
		{"--exclude=", "-a", "t/", "u"}, {"--exclude=*", "t/"}, {"--exclude=", "-c", "t/nested/", "u"},
	} {
		compare(t, root, args, nil)
	}
}

// TestExcludeDeepChain: patterns on a chain 300 directories deep, each
// holding a file "f", as du matches them (godu tries most patterns
// against one part of each path, du against every part).
func TestExcludeDeepChain(t *testing.T) {
	root := t.TempDir()
	testtree.DeepChain(t, root, 300, "d")
	for _, p := range []string{"*.x", "*/f", "d*f", "d/d", "f", "?", "[d]", "[!d]*", "x*", "d/*/f", "*d?d*", "\\d"} {
		compare(t, root, []string{"-a", "--exclude=" + p}, []string{"d"})
	}
	compare(t, root, []string{"-s", "--exclude=d*.x", "--exclude=d/d/f"}, []string{"d", "d/d/d/"})
}

// TestExcludeLiteral: a pattern without wildcards ('*', '?', '[', ']'),
// du compares as a string, its backslashes taken off but a last one,
// with the path and with what follows every '/' in it, a '/' before
// another included: '\' names a file "\", and "/d" excludes ".//d".
func TestExcludeLiteral(t *testing.T) {
	root := t.TempDir()
	testtree.Build(t, root, map[string]string{"t/\\": "file:10", "t/a\\": "file:20", "t/b": "file:30", "t/d/f": "file:40", "t/ab": "file:50"})
	for _, c := range []struct {
		pattern  string
		operands []string
	}{
		{"\\", []string{"t"}}, {"a\\", []string{"t"}}, {"a\\b", []string{"t"}}, {"\\a\\b", []string{"t"}},
		{"/d", []string{".//t/d"}}, {"/t", []string{".//t"}}, {"/d/f", []string{"t//d/f", "t/b"}}, {"//d", []string{"t///d"}},
		{"t//d", []string{"t//d"}}, {"/d*", []string{".//t/d"}}, {"d]", []string{"t"}},
	} {
		compare(t, root, []string{"-a", "--exclude=" + c.pattern}, c.operands)
	}
}

// TestExcludeCollating: brackets with collating symbols ("[.a.]", also
// ends of ranges) and equivalence classes ("[=a=]"), well and ill formed,
// in both locales, as du reads them.
func TestExcludeCollating(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{}
	for _, n := range []string{"a", "b", "c", "[", "]", "-", "=", ".", "é", "ab", "x"} {
		files["k/"+n+"f"] = "file:10"
	}
	testtree.Build(t, root, files)
	for _, p := range []string{"[[.a.]]f", "[[=a=]]f", "[[.].]]f", "[[.-.]]f", "[[.a.]-c]f", "[a-[.c.]]f", "[[.ab.]]f", "[[.space.]]f",
		"[[.a]f", "[[.a.]f", "[[=a=]f", "[[.]f", "[[=]f", "[[.é.]]f", "[[=e=]]f", "[![.a.]]f", "[[.[.]]f", "[[=a=]b]f", "[[...]]f",
		"[[.=.]]f", "[[===]]f", "[[:alpha:][.b.]]f", "[[..]]f", "[[=é=]]f", "[[.\\.]]f"} {
		for _, loc := range []string{"C", "C.UTF-8"} {
			args := []string{"-a", "--exclude=" + p, "k"}
			got := invoke(t, root, []string{"LC_ALL=" + loc}, "", godu, args)
			want := invoke(t, root, []string{"LC_ALL=" + loc}, "", "du", args)
			if got.Code != want.Code || !reflect.DeepEqual(testtree.Lines(got.Stdout, false), testtree.Lines(want.Stdout, false)) || got.Stderr != want.Stderr {
				t.Errorf("LC_ALL=%s %q: godu %+v, du %+v", loc, args, got, want)
			}
		}
	}
}

// TestExcludeFromSparse: -X reads its file a line at a time in bounded
// memory, a hole read as the NULs it holds (a NUL ends a pattern, and no
// line ends in a hole). Patterns around a 100 MiB hole match as du's; a
// 1 TiB file of nothing is read at once, where godu allocated its size
// and died (fatal error: out of memory).
func TestExcludeFromSparse(t *testing.T) {
	root := richTree(t)
	write := func(name string, size int64, parts map[int64]string) {
		f, err := os.Create(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := f.Truncate(size); err != nil {
			t.Skip("no sparse files here:", err)
		}
		for off, s := range parts {
			f.WriteAt([]byte(s), off)
		}
	}
	write("holes", 100<<20, map[int64]string{0: "nested\nfi", 50 << 20: "x\nnames  \n", 100<<20 - 7: "\nempty\n"})
	write("huge", 1<<40, map[int64]string{1<<40 - 6: "\nlinks"})
	for _, args := range [][]string{{"-X", "holes", "t/nested", "t/names", "t/empty", "t/files"}, {"-X", "holes", "-a", "t/names", "t/nested"}} {
		compare(t, root, args, nil)
	}
	cmd := exec.Command("timeout", "20", "sh", "-c", `ulimit -v 4000000; exec "$@"`, "sh", godu, "-X", "huge", "-a", "t/links", "t/empty")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil || strings.Contains(string(out), "t/links") || !strings.Contains(string(out), "t/empty") {
		t.Errorf("-X of a 1 TiB sparse file ending in a pattern: %v\n%s", err, out)
	}
}

// TestExcludeGlibcCharacters: in a UTF-8 locale glibc's fnmatch reads
// characters as glibc decodes them: code points past U+10FFFF in four,
// five and six bytes are characters (one '?' matches each), overlong
// forms and surrogates are not (their bytes match one by one).
func TestExcludeGlibcCharacters(t *testing.T) {
	needDu(t)
	root := t.TempDir()
	names := []string{"\xf4\x90\x80\x80", "\xf7\xbf\xbf\xbf", "\xf8\x88\x80\x80\x80", "\xfc\x84\x80\x80\x80\x80",
		"\xfd\xbf\xbf\xbf\xbf\xbf", "\xc0\x80", "\xe0\x80\x80", "\xf0\x80\x80\x80", "\xf8\x80\x80\x80\x80",
		"\xed\xa0\x80", "\xef\xbf\xbe", "\xf4\x8f\xbf\xbf", "\xfe", "a\xf8\x88\x80\x80\x80b"}
	os.Mkdir(filepath.Join(root, "dir"), 0o755)
	for _, n := range names {
		os.WriteFile(filepath.Join(root, "dir", n), []byte("x"), 0o644)
	}
	for _, pat := range []string{"?", "??", "a?b", "[!x]", "*\xf8*"} {
		var outs [2]string
		for i, prog := range []string{"du", godu} {
			cmd := exec.Command(prog, "-a", "--exclude="+pat, "dir")
			cmd.Dir = root
			cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s: %v: %s", prog, err, out)
			}
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			sort.Strings(lines)
			outs[i] = strings.Join(lines, "\n")
		}
		if outs[0] != outs[1] {
			t.Errorf("--exclude=%q in C.UTF-8:\ngodu %q\ndu   %q", pat, outs[1], outs[0])
		}
	}
}
