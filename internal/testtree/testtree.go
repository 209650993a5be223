//go:build unix

// Package testtree builds file trees for godu's tests and runs GNU du on
// them as the oracle. It is test support only.
package testtree

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// Build makes a tree under root from spec: each key is a slash-separated
// path; a value ending in "/" is a directory, "file:N" a file of N bytes,
// "sparse:N" a sparse file of apparent size N with one written byte,
// "symlink:TARGET" a symlink, "link:PATH" a hard link to PATH (relative
// to root). Parents are created as needed; entries are made in sorted
// order, so links follow their targets when named after them.
func Build(t testing.TB, root string, spec map[string]string) {
	t.Helper()
	keys := make([]string, 0, len(spec))
	for k := range spec {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		// Hard links last, so their targets exist.
		li, lj := isLink(spec[keys[i]]), isLink(spec[keys[j]])
		if li != lj {
			return lj
		}
		return keys[i] < keys[j]
	})
	for _, k := range keys {
		p := filepath.Join(root, k)
		v := spec[k]
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		switch {
		case v == "/":
			err = os.MkdirAll(p, 0o755)
		case hasPrefix(v, "file:"):
			n := atoi(t, v[5:])
			err = os.WriteFile(p, bytes.Repeat([]byte{'x'}, n), 0o644)
		case hasPrefix(v, "sparse:"):
			err = Sparse(p, int64(atoi(t, v[7:])))
		case hasPrefix(v, "symlink:"):
			err = os.Symlink(v[8:], p)
		case hasPrefix(v, "link:"):
			err = os.Link(filepath.Join(root, v[5:]), p)
		default:
			t.Fatalf("bad spec %q: %q", k, v)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func isLink(v string) bool { return hasPrefix(v, "link:") }

func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }

func atoi(t testing.TB, s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Sparse creates a file of apparent size n holding one written byte in
// the middle.
func Sparse(p string, n int64) error {
	f, err := os.Create(p)
	if err != nil {
		return err
	}
	defer f.Close()
	if n > 1 {
		if _, err := f.WriteAt([]byte{1}, n/2); err != nil {
			return err
		}
	}
	return f.Truncate(n)
}

// DeepChain makes levels nested directories, each named name, below root,
// each holding one 100-byte file, working relative to directory fds so
// that the chain may be far deeper than PATH_MAX.
func DeepChain(t testing.TB, root string, levels int, name string) {
	t.Helper()
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < levels; i++ {
		fd = Descend(t, fd, name)
		ffd, err := unix.Openat(fd, "f", unix.O_CREAT|unix.O_WRONLY|unix.O_CLOEXEC, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		unix.Write(ffd, bytes.Repeat([]byte{'y'}, 100))
		unix.Close(ffd)
	}
	unix.Close(fd)
}

// Descend makes the directory name in the directory open as parent,
// closes parent and returns the new directory, open: a step down a tree
// built relative to descriptors, at any depth.
func Descend(t testing.TB, parent int, name string) int {
	t.Helper()
	if err := unix.Mkdirat(parent, name, 0o755); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Openat(parent, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	unix.Close(parent)
	return fd
}

// Result is what a command did.
type Result struct {
	Stdout, Stderr string
	Code           int
}

// Run runs a command in dir with env added to a C-locale environment.
func Run(t testing.TB, dir string, cred *syscall.Credential, name string, args ...string) Result {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Args[0] = filepath.Base(name) // messages name the program as invoked
	cmd.Dir = dir
	// GORACE: a race-enabled godu would otherwise sleep a second at exit.
	cmd.Env = append(os.Environ(), "LC_ALL=C", "TZ=UTC", "GORACE=atexit_sleep_ms=0")
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("%s: %v", name, err)
		}
		code = ee.ExitCode()
	}
	return Result{o.String(), e.String(), code}
}

// Lines splits output into its records (by NUL when null is set, else by
// newline) and sorts them, for comparing outputs whose order may differ.
func Lines(out string, null bool) []string {
	sep := "\n"
	if null {
		sep = "\x00"
	}
	var ls []string
	for _, l := range bytes.Split([]byte(out), []byte(sep)) {
		if len(l) > 0 {
			ls = append(ls, string(l))
		}
	}
	sort.Strings(ls)
	return ls
}

// DuVersion is the local GNU du's version as major*100+minor (901 for
// 9.1), or 0 when du is missing or not GNU.
func DuVersion() int {
	out, err := exec.Command("du", "--version").Output()
	if err != nil {
		return 0
	}
	m := regexp.MustCompile(`\(GNU coreutils\) (\d+)\.(\d+)`).FindSubmatch(out)
	if m == nil {
		return 0
	}
	a, _ := strconv.Atoi(string(m[1]))
	b, _ := strconv.Atoi(string(m[2]))
	return a*100 + b
}

// ApparentFix returns, for du before 9.2 (which adds directories' st_size
// to apparent sizes), how much each printed directory path of a du run on
// operands (in cwd dir) must be lowered to give 9.2's figure: the st_size of
// every directory counted in its subtree. Directories are counted once per
// run, as du counts them with several operands. The "total" key holds the
// sum over operands.
func ApparentFix(t testing.TB, dir string, operands []string) map[string]int64 {
	t.Helper()
	fix := map[string]int64{}
	seen := map[[2]uint64]bool{}
	hashAll := len(operands) > 1
	var walk func(p string) int64
	walk = func(p string) int64 {
		var st unix.Stat_t
		if err := unix.Lstat(filepath.Join(dir, p), &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
			return 0
		}
		k := [2]uint64{uint64(st.Dev), st.Ino}
		if hashAll && seen[k] {
			return -1
		}
		seen[k] = true
		sum := st.Size
		ents, _ := os.ReadDir(filepath.Join(dir, p))
		for _, e := range ents {
			if e.IsDir() {
				if s := walk(join(p, e.Name())); s > 0 {
					sum += s
				}
			}
		}
		fix[p] = sum
		return sum
	}
	for _, op := range operands {
		if s := walk(op); s > 0 {
			fix["total"] += s
		}
	}
	return fix
}

func join(dir, name string) string {
	if len(dir) > 0 && dir[len(dir)-1] == '/' {
		return dir + name
	}
	return dir + "/" + name
}

// Random builds at dir a tree drawn from rng: levels more levels of
// directories below it, each directory with fewer than files files of
// random sizes (under 30,000 bytes), a symlink in one of four and a fifo
// in one of nine, and fewer than subdirs subdirectories; then links hard
// links to random files, each in a random file's directory.
func Random(t testing.TB, dir string, rng *rand.Rand, levels, files, subdirs, links int) {
	var made []string
	var mk func(dir string, level int)
	mk = func(dir string, level int) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for i, n := 0, rng.Intn(files); i < n; i++ {
			p := filepath.Join(dir, fmt.Sprintf("f%d", i))
			os.WriteFile(p, make([]byte, rng.Intn(30000)), 0o644)
			made = append(made, p)
		}
		if rng.Intn(4) == 0 {
			os.Symlink("f0", filepath.Join(dir, "sl"))
		}
		if rng.Intn(9) == 0 {
			unix.Mkfifo(filepath.Join(dir, "fifo"), 0o644)
		}
		for i, n := 0, rng.Intn(subdirs); level < levels && i < n; i++ {
			mk(filepath.Join(dir, fmt.Sprintf("d%d", i)), level+1)
		}
	}
	mk(dir, 0)
	for i := 0; i < links && len(made) > 0; i++ {
		to := filepath.Dir(made[rng.Intn(len(made))])
		os.Link(made[rng.Intn(len(made))], filepath.Join(to, fmt.Sprintf("hl%d", i)))
	}
}
