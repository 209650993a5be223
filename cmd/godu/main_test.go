//go:build unix

package main

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/godu-sh/godu/internal/bulk"
	"github.com/godu-sh/godu/internal/testtree"
)

// godu is the binary under test, built by TestMain in the same variant
// (cgo, purego or the portable reader, and buildTags) as this test binary.
// Under -race, goduRace is the same built with -race, which TestRaceBuild
// runs (godu itself stays plain: the suite runs it thousands of times).
var godu, goduRace string

// defaultSignals gives the programs the tests start SIGHUP and SIGINT
// at their default, where this test binary was started with them ignored
// (under nohup, or as a background job of a script): the Go runtime
// keeps those two ignored, and every child inherits that, so that du and
// godu outlive the signals the tests end them with (TestSignalsAsDu:
// "du after hangup: not ended by it"). A signal the process catches is
// reset to its default at exec; this one's are caught and dropped. Tests
// that want a signal ignored at exec ignore it in the child themselves.
func defaultSignals() {
	for _, sig := range []os.Signal{syscall.SIGHUP, syscall.SIGINT} {
		if signal.Ignored(sig) {
			signal.Notify(make(chan os.Signal, 1), sig)
		}
	}
}

// buildTags are the build tags of this test binary that godu is built
// with, beside purego.
var buildTags []string

func TestMain(m *testing.M) {
	defaultSignals()
	dir, err := os.MkdirTemp("", "godu-bin-")
	if err != nil {
		panic(err)
	}
	os.Chmod(dir, 0o755) // the permission tests run it as nobody
	godu = filepath.Join(dir, "godu")
	// GODU_BIN: the binary make build ships (linked statically on Linux)
	// instead of the one go build makes here, for the plain cgo variant;
	// copied here, where the tests run as nobody can run it.
	bin := os.Getenv("GODU_BIN")
	if bulk.Variant != "cgo" || len(buildTags) > 0 {
		bin = ""
	}
	if bin != "" {
		b, err := os.ReadFile(bin)
		if err == nil {
			err = os.WriteFile(godu, b, 0o755)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "GODU_BIN:", err)
			os.Exit(2)
		}
		fmt.Fprintf(os.Stderr, "testing %s (GODU_BIN), %d bytes\n", bin, len(b))
	}
	args := []string{"build", "-o", godu}
	env := os.Environ()
	tags := buildTags
	switch bulk.Variant {
	case "purego":
		tags = append(tags, "purego")
	case "portable":
		tags = append(tags, "godu_portable")
	}
	if len(tags) > 0 {
		args = append(args, "-tags", strings.Join(tags, ","))
	}
	var builds [][]string
	if bin == "" {
		builds = append(builds, args)
	}
	if raceEnabled {
		goduRace = filepath.Join(dir, "godu-race")
		builds = append(builds, append([]string{"build", "-race", "-o", goduRace}, args[3:]...))
	}
	for _, b := range builds {
		cmd := exec.Command("go", append(b, ".")...)
		cmd.Env = env
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "building godu:", err)
			os.Exit(2)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func needDu(t *testing.T) int {
	t.Helper()
	v := testtree.DuVersion()
	if v == 0 {
		t.Fatal("GNU du is the oracle of these tests and is not installed")
	}
	return v
}

// richTree is every shape the differential tests cover.
func richTree(t *testing.T) string {
	root := t.TempDir()
	testtree.Build(t, root, map[string]string{
		"t/empty/":                  "/",
		"t/nested/a/b/c/":           "/",
		"t/nested/a/b/c/deep":       "file:5000",
		"t/nested/a/one":            "file:1",
		"t/files/empty":             "file:0",
		"t/files/1":                 "file:1",
		"t/files/4095":              "file:4095",
		"t/files/4097":              "file:4097",
		"t/files/100k":              "file:100000",
		"t/files/3m":                "file:3000000",
		"t/files/sparse":            "sparse:10000000",
		"t/links/to-file":           "symlink:../files/1",
		"t/links/to-dir":            "symlink:../nested",
		"t/links/dangling":          "symlink:nowhere",
		"t/hard/orig":               "file:20000",
		"t/hard/same-dir":           "link:t/hard/orig",
		"t/hard2/other-dir":         "link:t/hard/orig",
		"t/names/with space":        "file:10",
		"t/names/new\nline":         "file:20",
		"t/names/bad-\xff\xfe-utf8": "file:30",
		"t/names/dir \xff\n/x":      "file:40",
		"u/sub/f":                   "file:8000",
		"u/cross":                   "link:t/hard/orig",
	})
	return root
}

// compare runs godu and du with args in dir and requires the same lines,
// in any order, the same messages and the same exit status. apparent says
// the sizes are apparent sizes in bytes (-b), which du before 9.2 inflates
// by directories' st_size: those are corrected before comparing.
func compare(t *testing.T, dir string, args []string, operands []string) {
	t.Helper()
	compareWith(t, dir, nil, args, operands)
}

// compareWith is compare with godu's own options (which du lacks) first
// on godu's command line.
func compareWith(t *testing.T, dir string, own, args []string, operands []string) {
	t.Helper()
	all := append(append([]string{}, args...), operands...)
	got := testtree.Run(t, dir, nil, godu, append(append([]string{}, own...), all...)...)
	compareOutput(t, dir, got, args, operands, true)
}

// compareOutput compares got, what godu did with args and operands, with
// what du does now; with status, its messages and exit status too.
func compareOutput(t *testing.T, dir string, got testtree.Result, args, operands []string, status bool) {
	t.Helper()
	v := needDu(t)
	all := append(append([]string{}, args...), operands...)
	want := testtree.Run(t, dir, nil, "du", all...)
	null := contains(args, "-0")
	wl, gl := testtree.Lines(want.Stdout, null), testtree.Lines(got.Stdout, null)
	if apparentBytes(args) && v < 902 {
		ops := make([]string, len(operands))
		for i, op := range operands {
			ops[i] = strings.TrimRight(op, "/") + strings.Repeat("/", min(1, len(op)-len(strings.TrimRight(op, "/"))))
		}
		wl = fixApparent(t, wl, testtree.ApparentFix(t, dir, ops))
	}
	if !contains(args, "-l") {
		links := hardLinks(t, dir, operands)
		wl, gl = links.mask(wl), links.mask(gl)
	}
	if !reflect.DeepEqual(wl, gl) {
		t.Errorf("godu %q:\n got %q\nwant %q", all, gl, wl)
	}
	if !status {
		return
	}
	we := testtree.Lines(strings.ReplaceAll(strings.ReplaceAll(want.Stderr, "du: ", "godu: "), "'du --help'", "'godu --help'"), false)
	ge := testtree.Lines(got.Stderr, false)
	if !reflect.DeepEqual(we, ge) {
		t.Errorf("godu %q: stderr\n got %q\nwant %q", all, ge, we)
	}
	if want.Code != got.Code {
		t.Errorf("godu %q: exit status %d, want %d", all, got.Code, want.Code)
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func apparentBytes(args []string) bool {
	return contains(args, "-b") || contains(args, "-sb") || contains(args, "-ab") ||
		contains(args, "--apparent-size") && (contains(args, "-B1") || contains(args, "--block-size=1"))
}

// fixApparent lowers du 9.1's apparent byte counts by fix[path].
func fixApparent(t *testing.T, lines []string, fix map[string]int64) []string {
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		size, path, ok := strings.Cut(l, "\t")
		if !ok {
			t.Fatalf("bad du line %q", l)
		}
		n, err := strconv.ParseInt(size, 10, 64)
		if err != nil {
			t.Fatalf("bad du size in %q", l)
		}
		out = append(out, fmt.Sprintf("%d\t%s", n-fix[path], path))
	}
	return testtree.Lines(strings.Join(out, "\x00"), true)
}

// linkSets records, per operand, the paths (as du prints them) of every
// file with several links. Which of a file's links du counts depends on
// the order it reads directories in, which godu does not share; so lines
// whose figure depends on that choice are compared by path only, and the
// lines of the links themselves by how many there are.
type linkSets struct {
	ops    []string
	groups []map[uint64][]string // per operand: inode -> paths
	isLink map[string]bool
}

func hardLinks(t *testing.T, dir string, operands []string) *linkSets {
	ls := &linkSets{ops: operands, isLink: map[string]bool{}}
	if len(operands) == 0 {
		ls.ops = []string{"."}
	}
	for _, op := range ls.ops {
		g := map[uint64][]string{}
		filepath.WalkDir(filepath.Join(dir, op), func(p string, e os.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return nil
			}
			var st syscall.Stat_t
			if syscall.Lstat(p, &st) != nil || st.Nlink < 2 {
				return nil
			}
			rel, _ := filepath.Rel(filepath.Join(dir, op), p)
			pp := op
			if rel != "." {
				pp = walkJoin(op, rel)
			}
			g[st.Ino] = append(g[st.Ino], pp)
			ls.isLink[pp] = true
			return nil
		})
		ls.groups = append(ls.groups, g)
	}
	return ls
}

func walkJoin(dir, name string) string {
	if strings.HasSuffix(dir, "/") {
		return dir + name
	}
	return dir + "/" + name
}

func under(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}

// mask replaces figures that depend on which link was counted.
func (ls *linkSets) mask(lines []string) []string {
	var out []string
	nlinks := 0
	for _, l := range lines {
		size, p, _ := strings.Cut(l, "\t")
		if ls.isLink[p] {
			nlinks++
			continue
		}
		for i, op := range ls.ops {
			if !under(p, op) {
				continue
			}
			for _, g := range ls.groups[i] {
				n := 0
				for _, lp := range g {
					if under(lp, p) {
						n++
					}
				}
				if n > 0 && n < len(g) {
					size = "?"
				}
			}
		}
		out = append(out, size+"\t"+p)
	}
	sort.Strings(out)
	return append(out, fmt.Sprintf("%d hard-linked entries", nlinks))
}

var flagSets = [][]string{
	{"-s"}, {"-sk"}, {"-sh"}, {"-sm"}, {"-sb"}, {"-s", "--si"}, {"-s", "--inodes"},
	{"-a", "-0"}, {"-ab", "-0"}, {"-ah", "-0"}, {"-d", "1", "-0"}, {"-d", "0"},
	{"-c", "-0"}, {"-l", "-s"}, {"-l", "-a", "-0"}, {"-s", "-B", "1M"}, {"-s", "-BK"},
	{"-s", "-B", "100"}, {"-a", "--inodes", "-0"}, {"-0"}, {"-sc"}, {"-s", "-t", "100K"},
	{"-S", "-0"}, {"-sS"}, {"-S", "-d", "1", "-0"}, {"-S", "--inodes", "-0"},
}

func TestDifferentialOneOperand(t *testing.T) {
	root := richTree(t)
	for _, fl := range flagSets {
		compare(t, root, fl, []string{"t"})
	}
}

func TestDifferentialOperands(t *testing.T) {
	root := richTree(t)
	sets := [][]string{
		{"t", "u"},                 // a hard link across two operands
		{"t", "t"},                 // the same operand twice
		{"t/nested", "t"},          // a nested operand first
		{"t", "t/nested"},          // a nested operand after
		{"t/hard/orig", "t/hard2"}, // a file operand, then its link
		{"t/files/1", "t/files"},   // a file operand inside a later one
		{"t/links/to-dir", "t/links/dangling", "t/files/3m"},
		{"t/", "u//"},
	}
	for _, ops := range sets {
		for _, fl := range [][]string{{"-s"}, {"-sb"}, {"-sc"}, {"-a", "-0"}, {"-d", "1", "-c", "-0"}, {"-l", "-s"}, {"-s", "--inodes"}} {
			compare(t, root, fl, ops)
		}
	}
}

func TestDefaultOperandIsDot(t *testing.T) {
	root := richTree(t)
	compare(t, filepath.Join(root, "t"), []string{"-a", "-0"}, nil)
}

func TestMissingOperand(t *testing.T) {
	root := richTree(t)
	compare(t, root, []string{"-s"}, []string{"t/files", "missing", "u"})
}

func TestDeeperThanPathMax(t *testing.T) {
	root := t.TempDir()
	testtree.DeepChain(t, root, 300, strings.Repeat("d", 200))
	compare(t, root, []string{"-s"}, []string{"."})
	// The local du may add directories' sizes to apparent sizes; 9.2's
	// figure is known exactly: 300 files of 100 bytes.
	if got := testtree.Run(t, root, nil, godu, "-sb", "."); got.Stdout != "30000\t.\n" || got.Code != 0 {
		t.Errorf("godu -sb on the deep chain: %+v, want 30000", got)
	}
	compare(t, root, []string{"-s", "--inodes"}, []string{"."})
}

func TestLargeDirectory(t *testing.T) {
	// Several batches: the directory is listed by one worker and examined
	// by others. Hard links and subdirectories among the plain files.
	root := t.TempDir()
	dir := filepath.Join(root, "big")
	os.Mkdir(dir, 0o755)
	for i := 0; i < 5000; i++ {
		p := filepath.Join(dir, fmt.Sprintf("f%05d", i))
		if err := os.WriteFile(p, make([]byte, i%7000), 0o644); err != nil {
			t.Fatal(err)
		}
		if i%500 == 0 {
			os.Link(p, p+".link")
			os.Mkdir(filepath.Join(dir, fmt.Sprintf("d%05d", i)), 0o755)
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("d%05d", i), "x"), make([]byte, 9000), 0o644)
		}
	}
	for _, fl := range [][]string{{"-s"}, {"-sb"}, {"-s", "--inodes"}, {"-a", "-0"}, {"-d", "1"}, {"-sl"}} {
		compare(t, root, fl, []string{"big"})
	}
}

// TestBigDirectoryOfSubtrees: a directory of many subdirectories, listed
// by one worker while others examine its batches and read the
// subdirectories' subtrees by subtree walks from there: empty ones, nested
// ones, ones with hard links between them, and ones too big for a walk
// (handed over open), among plain files.
func TestBigDirectoryOfSubtrees(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, "big")
	os.Mkdir(dir, 0o755)
	write := func(p string, n int) {
		if err := os.WriteFile(p, make([]byte, n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 3000; i++ {
		sub := filepath.Join(dir, fmt.Sprintf("d%04d", i))
		os.Mkdir(sub, 0o755)
		switch i % 10 {
		case 1:
			write(filepath.Join(sub, "f"), i*10)
		case 2:
			os.MkdirAll(filepath.Join(sub, "a", "b"), 0o755)
			write(filepath.Join(sub, "a", "b", "g"), 5000)
			write(filepath.Join(sub, "a", "h"), 100)
		case 3:
			write(filepath.Join(sub, "l"), 7000)
			os.Link(filepath.Join(sub, "l"), filepath.Join(dir, fmt.Sprintf("d%04d", i-1), "l2"))
		}
		if i%1000 == 500 {
			for j := 0; j < 700; j++ {
				write(filepath.Join(sub, fmt.Sprintf("many-%04d", j)), j)
			}
		}
		if i%3 == 0 {
			write(filepath.Join(dir, fmt.Sprintf("f%04d", i)), i)
		}
	}
	for _, fl := range [][]string{{"-s"}, {}, {"-d", "1"}, {"-a"}, {"-S", "-d", "1"}, {"-s", "--inodes"}, {"-sl"}, {"-d", "2", "-b"}, {"-c", "-s"}, {"--time", "-s"}} {
		compare(t, root, fl, []string{"big"})
	}
}

func nobody(t *testing.T) *syscall.Credential {
	if os.Getuid() != 0 {
		t.Skip("dropping privileges needs root")
	}
	return &syscall.Credential{Uid: 65534, Gid: 65534}
}

// openUp makes dir and its ancestors searchable by others, for nobody.
func openUp(t *testing.T, dir string) {
	for d := dir; d != "/"; d = filepath.Dir(d) {
		st, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		os.Chmod(d, st.Mode().Perm()|0o055)
	}
}

func TestPermissionDenied(t *testing.T) {
	cred := nobody(t)
	root := richTree(t)
	testtree.Build(t, root, map[string]string{
		"p/locked/secret":    "file:50000",
		"p/locked/sub/x":     "file:10",
		"p/noexec/f":         "file:7000",
		"p/ok/f":             "file:30000",
		"p/zz/f":             "file:12000",
		"p/listonly/a":       "file:100",
		"p/unreadable-file":  "file:10",
		"p/locked-root/file": "file:10",
		// Deeper, where a subtree is read in one call to the core.
		"p/n1/n2/locked/secret": "file:50000",
		"p/n1/n2/noexec/f":      "file:7000",
		"p/n1/n2/noexec/g":      "file:7000",
		"p/n1/n3/n4/listonly/a": "file:100",
		"p/n1/n3/n4/ok/b":       "file:9000",
		"p/n1/n3/n4/unreadable": "file:10",
	})
	openUp(t, filepath.Join(root, "p"))
	os.Chmod(filepath.Join(root, "p/locked"), 0o700)
	os.Chmod(filepath.Join(root, "p/noexec"), 0o744)
	os.Chmod(filepath.Join(root, "p/listonly"), 0o711)
	os.Chmod(filepath.Join(root, "p/unreadable-file"), 0o000)
	os.Chmod(filepath.Join(root, "p/n1/n2/locked"), 0o700)
	os.Chmod(filepath.Join(root, "p/n1/n2/noexec"), 0o744)
	os.Chmod(filepath.Join(root, "p/n1/n3/n4/listonly"), 0o711)
	os.Chmod(filepath.Join(root, "p/n1/n3/n4/unreadable"), 0o000)
	for _, args := range [][]string{{"-s"}, {"-a", "-0"}, {"-d", "1"}, {"-sc"}} {
		all := append(append([]string{}, args...), "p", "p/ok")
		want := testtree.Run(t, root, cred, "du", all...)
		got := testtree.Run(t, root, cred, godu, all...)
		null := contains(args, "-0")
		if w, g := testtree.Lines(want.Stdout, null), testtree.Lines(got.Stdout, null); !reflect.DeepEqual(w, g) {
			t.Errorf("%q: got %q\nwant %q", all, g, w)
		}
		we := testtree.Lines(strings.ReplaceAll(want.Stderr, "du: ", "godu: "), false)
		ge := testtree.Lines(got.Stderr, false)
		if !reflect.DeepEqual(we, ge) {
			t.Errorf("%q: stderr %q, want %q", all, ge, we)
		}
		if got.Code != 1 || want.Code != 1 {
			t.Errorf("%q: exit status %d (du %d), want 1", all, got.Code, want.Code)
		}
		if !strings.Contains(got.Stderr, "godu: cannot read directory 'p/locked': Permission denied") {
			t.Errorf("%q: no read error for p/locked in %q", all, got.Stderr)
		}
	}
	// An unreadable operand.
	os.Chmod(filepath.Join(root, "p/locked-root"), 0o700)
	got := testtree.Run(t, root, cred, godu, "-s", "p/locked-root", "p/ok")
	want := testtree.Run(t, root, cred, "du", "-s", "p/locked-root", "p/ok")
	if got.Stdout != want.Stdout || got.Code != 1 || strings.ReplaceAll(want.Stderr, "du: ", "godu: ") != got.Stderr {
		t.Errorf("unreadable operand: got %+v, want %+v", got, want)
	}
}

func TestUsageErrors(t *testing.T) {
	root := t.TempDir()
	for _, args := range [][]string{
		{"-sa"}, {"-s", "-d", "2"}, {"-s", "-d", "0"}, {"-B", "x"}, {"--block-size=0"},
		{"-B", "1X"}, {"--block-size", "1X"}, {"-B", "99999999999999999999"}, {"--foo"}, {"-q"}, {"-d", "x"}, {"-d"}, {"--max-depth"}, {""},
	} {
		want := testtree.Run(t, root, nil, "du", args...)
		got := testtree.Run(t, root, nil, godu, args...)
		ws := strings.ReplaceAll(want.Stderr, "du", "godu")
		if got.Stderr != ws || got.Code != want.Code || got.Stdout != want.Stdout {
			t.Errorf("%q: got %q (%d), want %q (%d)", args, got.Stderr, got.Code, ws, want.Code)
		}
	}
}

// TestHumanFormats checks the size formatter on single files (whose
// apparent size every du version reports alike) of sizes around each
// rounding edge, for each unit option.
func TestHumanFormats(t *testing.T) {
	needDu(t)
	root := t.TempDir()
	var names []string
	sizes := []int64{0, 1, 512, 1000, 1023, 1024, 1025, 1536, 9999, 10189, 10239, 10240, 10241, 102400, 1048575,
		1048576, 1048577, 10485759, 10485761, 999999, 1000001, 1073741823, 1073741825, 5<<40 + 1, 1<<43 - 1}
	for _, n := range sizes {
		p := fmt.Sprintf("s%d", n)
		if err := testtree.Sparse(filepath.Join(root, p), n); err != nil {
			t.Fatal(err)
		}
		names = append(names, p)
	}
	for _, fl := range [][]string{{"-h"}, {"--si"}, {"-k"}, {"-m"}, {"-BK"}, {"-BKB"}, {"-BKiB"}, {"-BMB"}, {"-B", "1000"},
		{"-BG"}, {"-B", "3"}, {"-B", "0x10"}, {"-B", "010"}, {"-BT"}} {
		args := append([]string{"--apparent-size"}, fl...)
		compare(t, root, args, names)
		compare(t, root, fl, names)
	}
}
