//go:build linux

package main

import (
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestGeneratedTrees: random small trees (files of many sizes, sparse
// ones, empty directories, hard links within the tree and to files
// outside it, symlinks to files, to directories, to ancestors and to
// nothing, names with blanks, newlines and bytes that are not UTF-8, an
// unreadable directory) and random du command lines over them (du's
// options, clustered and abbreviated, repeated and conflicting, operands
// that are directories, files, symlinks or missing, --files0-from, -X,
// "--"), each run by du and godu, which must print the same bytes, the
// same messages and exit with the same status. The trees list every
// directory by name where the system allows it (sortedTree), so that
// du's order is godu's. GODU_FUZZ_N sets the number of command lines
// (default 150), GODU_TEST_SEED shifts the seed; GODU_FUZZ_ORDER=1 logs
// the cases whose messages come in another order than du's (tolerated).
func TestGeneratedTrees(t *testing.T) {
	needDu(t)
	n := 150
	if s := os.Getenv("GODU_FUZZ_N"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	r := rand.New(rand.NewSource(7 + seedOffset()))
	var cred *syscall.Credential
	if os.Getuid() == 0 {
		cred = &syscall.Credential{Uid: 65534, Gid: 65534} // for the unreadable directory
	}
	var ft *fuzzTree
	number := regexp.MustCompile(`(^|[\n\x00])[^\t\n\x00]*\t`)
	orderOnly := 0
	for i := 0; i < n; i++ {
		if i%50 == 0 {
			ft = newFuzzTree(t, r)
			if !ft.sorted {
				t.Skip("directories do not list their entries by name here (no tmpfs): du's order is not godu's")
			}
		}
		args, stdin := ft.commandLine(r)
		want := ft.run(t, cred, "du", args, stdin)
		got := ft.run(t, cred, godu, args, stdin)
		if apparent(args) {
			// du 9.1 adds directories' st_size to apparent sizes (9.2
			// and godu do not): the figures are left out, and with a
			// threshold which lines pass it.
			want.Stdout = number.ReplaceAllString(want.Stdout, "${1}N\t")
			got.Stdout = number.ReplaceAllString(got.Stdout, "${1}N\t")
			if threshold(args) {
				want.Stdout, got.Stdout = "", ""
			}
		}
		if got == want {
			continue
		}
		if got.Stdout == want.Stdout && got.Code == want.Code && sortedLines(got.Stderr) == sortedLines(want.Stderr) {
			// The same messages in another order: godu reports an error
			// when a worker meets it.
			orderOnly++
			if os.Getenv("GODU_FUZZ_ORDER") != "" {
				t.Logf("%q: messages\n got %q\nwant %q", args, got.Stderr, want.Stderr)
			}
			continue
		}
		t.Errorf("seed %d case %d: du %q\n got %q %q %d\nwant %q %q %d", 7+seedOffset(), i, args,
			got.Stdout, got.Stderr, got.Code, want.Stdout, want.Stderr, want.Code)
	}
	t.Logf("%d command lines, %d with messages in another order", n, orderOnly)
}

// apparent reports whether args may ask for apparent sizes (too often is
// no harm).
func apparent(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if strings.HasPrefix(a, "--ap") || strings.HasPrefix(a, "--by") || !strings.HasPrefix(a, "--") && strings.HasPrefix(a, "-") && strings.Contains(a, "b") {
			return true
		}
	}
	return false
}

func threshold(args []string) bool {
	for _, a := range args {
		if strings.HasPrefix(a, "--th") || !strings.HasPrefix(a, "--") && strings.HasPrefix(a, "-") && strings.Contains(a, "t") {
			return true
		}
	}
	return false
}

type fuzzTree struct {
	root   string
	sorted bool
	paths  []string // every entry, relative to root
	dirs   []string
	files  []string
}

var fuzzNames = []string{"a", "b", "c", "d0", "file", "x y", "new\nline", "bad\xff\xfe", "é", "-", "*", ".hid", "z", "sub", "tab\tx", "q?"}

// newFuzzTree makes a random tree under t (and sortedTree's root).
func newFuzzTree(t *testing.T, r *rand.Rand) *fuzzTree {
	spec := map[string]string{}
	var files, dirs []string
	var gen func(dir string, depth int)
	gen = func(dir string, depth int) {
		used := map[string]bool{}
		for k := r.Intn(6); k >= 0; k-- {
			name := fuzzNames[r.Intn(len(fuzzNames))]
			if used[name] {
				continue
			}
			used[name] = true
			p := filepath.Join(dir, name)
			switch x := r.Intn(10); {
			case x < 4 || depth >= 3 && x < 7:
				spec[p] = []string{"file:0", "file:1", "file:4095", "file:4097", "file:9000", "file:70000", "sparse:3000000", "sparse:5000"}[r.Intn(8)]
				files = append(files, p)
			case x < 7:
				spec[p] = "/"
				dirs = append(dirs, p)
				gen(p, depth+1)
			case x < 8 && len(files) > 0:
				spec[p] = "link:" + files[r.Intn(len(files))]
			default:
				spec[p] = "symlink:" + []string{"..", ".", "../..", "nowhere", "a", "sub", "../a", "../sub/a", "file", "../../t"}[r.Intn(10)]
			}
		}
	}
	spec["t"] = "/"
	dirs = append(dirs, "t")
	gen("t", 1)
	spec["u"] = "/"
	dirs = append(dirs, "u")
	gen("u", 2)
	spec["pats"] = "text:a\n*.hid\nx y\n"
	spec["list0"] = "text:t\x00u\x00op-file\x00"
	spec["list-bad"] = "text:t\x00\x00missing\x00"
	spec["op-file"] = "file:3000"
	spec["op-link"] = "symlink:t"
	spec["op-dang"] = "symlink:missing"
	if len(files) > 0 {
		spec["op-hard"] = "link:" + files[0]
	}
	// The tree is root/w, beside root/stage, where files linked from
	// outside it stay: a symlink climbs at most to root.
	full := map[string]string{"stage/": "/"}
	for p, v := range spec {
		if strings.HasPrefix(v, "link:") {
			v = "link:w/" + v[5:]
		}
		full["w/"+p] = v
	}
	root, sorted := sortedTreeLinks(t, r, full)
	root = filepath.Join(root, "w")
	ft := &fuzzTree{root: root, sorted: sorted, dirs: dirs, files: files}
	for p := range spec {
		ft.paths = append(ft.paths, p)
	}
	sort.Strings(ft.paths)
	// Fixed times, access times ahead of now so that reading a directory
	// does not change them (relatime).
	ahead := time.Now().Add(time.Hour)
	filepath.Walk(root, func(p string, _ os.FileInfo, _ error) error {
		m := time.Unix(1_600_000_000+r.Int63n(100_000_000), r.Int63n(1e9))
		unix.UtimesNanoAt(unix.AT_FDCWD, p, []unix.Timespec{unix.NsecToTimespec(ahead.UnixNano()), unix.NsecToTimespec(m.UnixNano())}, unix.AT_SYMLINK_NOFOLLOW)
		return nil
	})
	if len(dirs) > 2 {
		os.Chmod(filepath.Join(root, dirs[2+r.Intn(len(dirs)-2)]), []os.FileMode{0o000, 0o311, 0o644}[r.Intn(3)])
	}
	return ft
}

// sortedTreeLinks is sortedTree with hard links ("link:PATH") and sparse
// files ("sparse:N"): every file is made first in a staging directory
// beside the tree and linked into place in order; some stay there (links
// to outside the tree).
func sortedTreeLinks(t *testing.T, r *rand.Rand, spec map[string]string) (string, bool) {
	plain := map[string]string{}
	var linkPaths []string
	for p, v := range spec {
		switch {
		case strings.HasPrefix(v, "link:"), strings.HasPrefix(v, "sparse:"), strings.HasPrefix(v, "file:"):
			plain[p] = "symlink:placeholder" // made below, in its place in order
			linkPaths = append(linkPaths, p)
		default:
			plain[p] = v
		}
	}
	root, sorted := sortedTree(t, plain)
	os.Chmod(root, 0o755)
	stage := filepath.Join(root, "stage")
	newestFirst := listsNewestFirst(t, root)
	staged := map[string]string{}
	sort.Strings(linkPaths)
	stageOf := func(p string) string {
		if s, ok := staged[p]; ok {
			return s
		}
		s := filepath.Join(stage, strconv.Itoa(len(staged)))
		v := spec[p]
		var size int64
		fmt.Sscan(v[strings.IndexByte(v, ':')+1:], &size)
		if strings.HasPrefix(v, "sparse:") {
			f, err := os.Create(s)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteAt([]byte("x"), size/2)
			f.Truncate(size)
			f.Close()
		} else if err := os.WriteFile(s, make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
		staged[p] = s
		return s
	}
	// A new entry goes first or last in its directory's listing, so each
	// directory with files is remade: its entries moved out and back in
	// the order that lists them as before.
	byDir := map[string]bool{}
	for _, p := range linkPaths {
		byDir[filepath.Dir(p)] = true
	}
	for d := range byDir {
		dir := filepath.Join(root, d)
		names := readdirOrder(t, dir)
		if newestFirst {
			for i, j := 0, len(names)-1; i < j; i, j = i+1, j-1 {
				names[i], names[j] = names[j], names[i]
			}
		}
		hold := filepath.Join(stage, "hold")
		os.Mkdir(hold, 0o755)
		for _, n := range names {
			os.Rename(filepath.Join(dir, n), filepath.Join(hold, n))
		}
		for _, n := range names {
			p := filepath.Join(d, n)
			v := spec[p]
			if !strings.HasPrefix(v, "link:") && !strings.HasPrefix(v, "sparse:") && !strings.HasPrefix(v, "file:") {
				os.Rename(filepath.Join(hold, n), filepath.Join(dir, n))
				continue
			}
			os.Remove(filepath.Join(hold, n))
			src := p
			if strings.HasPrefix(v, "link:") {
				src = v[5:]
			}
			if err := os.Link(stageOf(src), filepath.Join(dir, n)); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, s := range staged {
		if r.Intn(4) != 0 {
			os.Remove(s)
		}
	}
	os.Remove(filepath.Join(stage, "hold"))
	os.Chmod(stage, 0o311) // not listed: its order is no one's
	sorted = true
	filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
		if err == nil && e.IsDir() && p != stage {
			if names := readdirOrder(t, p); !sort.StringsAreSorted(names) {
				t.Logf("%s lists %q", p, names)
				sorted = false
			}
		}
		return nil
	})
	return root, sorted
}

var fuzzShort = "asScLPHDx0bkmhlL"

// commandLine makes a random du command line over ft, and the standard
// input to give it.
func (ft *fuzzTree) commandLine(r *rand.Rand) ([]string, string) {
	var args []string
	stdin := ""
	longs := []string{"all", "apparent-size", "bytes", "count-links", "dereference", "dereference-args", "human-readable",
		"inodes", "no-dereference", "null", "one-file-system", "separate-dirs", "si", "summarize", "total",
		"max-depth=", "threshold=", "block-size=", "exclude=", "exclude-from=", "time", "time=", "time-style=", "files0-from="}
	value := func(name string) string {
		switch name {
		case "max-depth=":
			return []string{"0", "1", "2", "-1", "x", "00", " 1"}[r.Intn(7)]
		case "threshold=":
			return []string{"1", "4K", "-4K", "8k", "-1", "0", "100000", "-0", "1Q", "x"}[r.Intn(10)]
		case "block-size=":
			return []string{"1", "1K", "K", "KB", "1M", "512", "0", "x", "'1", "human-readable", "si", "3", "1MiB"}[r.Intn(13)]
		case "exclude=":
			return []string{"a", "*", "x y", "t/*", "*.hid", "[ab]", "sub", "?", "t", "b*"}[r.Intn(10)]
		case "exclude-from=":
			return []string{"pats", "missing-pats", "-"}[r.Intn(3)]
		case "time=":
			return []string{"atime", "ctime", "mtime", "access", "use", "status", "bogus", "a", "c"}[r.Intn(9)]
		case "time-style=":
			return []string{"iso", "long-iso", "full-iso", "+%Y %j", "+%s.%N", "locale", "bogus", "+", "posix-iso", "+%c"}[r.Intn(10)]
		case "files0-from=":
			return []string{"list0", "list-bad", "-", "missing-list"}[r.Intn(4)]
		}
		return ""
	}
	abbrev := func(name string) string {
		bare := strings.TrimSuffix(name, "=")
		if r.Intn(3) == 0 {
			bare = bare[:1+r.Intn(len(bare))]
		}
		return bare
	}
	for k := r.Intn(5); k >= 0; k-- {
		switch x := r.Intn(12); {
		case x < 4: // a cluster of short options
			var b strings.Builder
			b.WriteByte('-')
			for m := 1 + r.Intn(3); m > 0; m-- {
				b.WriteByte(fuzzShort[r.Intn(len(fuzzShort))])
			}
			if r.Intn(4) == 0 { // ending with one that takes a value
				opt := []string{"d", "t", "B", "X"}[r.Intn(4)]
				b.WriteString(opt)
				v := map[string]string{"d": value("max-depth="), "t": value("threshold="), "B": value("block-size="), "X": value("exclude-from=")}[opt]
				if r.Intn(2) == 0 {
					b.WriteString(v)
				} else {
					args = append(args, b.String())
					b.Reset()
					b.WriteString(v)
				}
			}
			args = append(args, b.String())
		case x < 10:
			name := longs[r.Intn(len(longs))]
			a := "--" + abbrev(name)
			if strings.HasSuffix(name, "=") {
				v := value(name)
				if r.Intn(4) == 0 && name != "time=" {
					args = append(args, a, v)
				} else {
					args = append(args, a+"="+v)
				}
				if v == "-" {
					stdin = []string{"a\n", "t\x00u\x00", "t\x00"}[r.Intn(3)]
				}
			} else {
				args = append(args, a)
			}
		case x < 11:
			args = append(args, []string{"-q", "--bogus", "-d", "--max-depth", "--time-style", "-", "--si=1", "-B"}[r.Intn(8)])
		default:
			args = append(args, "--")
		}
	}
	ops := []string{"t", "u", "op-file", "op-link", "op-dang", "missing", "t/", "op-hard", ".", "t//"}
	for k := r.Intn(4); k > 0; k-- {
		switch r.Intn(3) {
		case 0:
			args = append(args, ops[r.Intn(len(ops))])
		default:
			args = append(args, ft.paths[r.Intn(len(ft.paths))])
		}
	}
	return args, stdin
}

type fuzzResult struct {
	Stdout, Stderr string
	Code           int
}

func (ft *fuzzTree) run(t *testing.T, cred *syscall.Credential, prog string, args []string, stdin string) fuzzResult {
	t.Helper()
	fix := func(s string) string { return s }
	if prog == "du" {
		args, fix = asDu92(args, nil)
	}
	cmd := exec.Command(prog, args...)
	cmd.Args[0] = "du"
	cmd.Dir = ft.root
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Env = append(os.Environ(), "LC_ALL=C", "TZ=UTC", "GORACE=atexit_sleep_ms=0")
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	res := runCaptured(t, cmd)
	return fuzzResult{res.Stdout, fix(res.Stderr), res.Code}
}
