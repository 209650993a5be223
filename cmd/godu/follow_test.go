//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// sortedTree builds spec (path -> "/" for a directory, "file:N",
// "symlink:TARGET", or "link:NAME", a hard link to a file of one byte
// outside the tree, the same for the same NAME) so that every directory lists its entries in name
// order, where the system allows it: on tmpfs, which lists a directory's
// entries in the order they were made (or its reverse). There du's
// traversal order is godu's (each directory's entries by name), and the
// lines of the two can be compared as they are. It reports whether every
// directory lists by name.
func sortedTree(t *testing.T, spec map[string]string) (string, bool) {
	t.Helper()
	base := ""
	var fs unix.Statfs_t
	if unix.Statfs("/dev/shm", &fs) == nil && fs.Type == unix.TMPFS_MAGIC {
		base = "/dev/shm"
	}
	root, err := os.MkdirTemp(base, "godu-sorted-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	reverse := listsNewestFirst(t, root)

	links := root + ".links"
	for _, v := range spec {
		if name, ok := strings.CutPrefix(v, "link:"); ok {
			os.Mkdir(links, 0o755)
			t.Cleanup(func() { os.RemoveAll(links) })
			if _, err := os.Stat(filepath.Join(links, name)); err != nil {
				os.WriteFile(filepath.Join(links, name), []byte("x"), 0o644)
			}
		}
	}
	children := map[string][]string{}
	kind := map[string]string{}
	for p, v := range spec {
		p = strings.TrimSuffix(p, "/")
		kind[p] = v
		for d := p; d != "."; d = filepath.Dir(d) {
			if _, ok := kind[d]; !ok {
				kind[d] = "/"
			}
		}
	}
	for p := range kind {
		children[filepath.Dir(p)] = append(children[filepath.Dir(p)], filepath.Base(p))
	}
	var build func(dir string)
	build = func(dir string) {
		names := children[dir]
		sort.Strings(names)
		if reverse {
			sort.Sort(sort.Reverse(sort.StringSlice(names)))
		}
		for _, n := range names {
			p := filepath.Join(dir, n)
			full := filepath.Join(root, p)
			v := kind[p]
			var err error
			switch {
			case v == "/":
				err = os.Mkdir(full, 0o755)
			case strings.HasPrefix(v, "text:"):
				err = os.WriteFile(full, []byte(v[5:]), 0o644)
			case strings.HasPrefix(v, "file:"):
				var size int
				fmt.Sscan(v[5:], &size)
				err = os.WriteFile(full, make([]byte, size), 0o644)
			case strings.HasPrefix(v, "symlink:"):
				err = os.Symlink(v[8:], full)
			case strings.HasPrefix(v, "link:"):
				err = os.Link(filepath.Join(links, v[5:]), full)
			default:
				t.Fatalf("bad spec %q: %q", p, v)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		for _, n := range names {
			if kind[filepath.Join(dir, n)] == "/" {
				build(filepath.Join(dir, n))
			}
		}
	}
	build(".")
	sorted := true
	filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
		if err == nil && e.IsDir() {
			names := readdirOrder(t, p)
			sorted = sorted && sort.StringsAreSorted(names)
		}
		return nil
	})
	return root, sorted
}

// listsNewestFirst reports whether a new directory below root lists its
// entries newest first (tmpfs before Linux 6.6 and since), not oldest first.
func listsNewestFirst(t *testing.T, root string) bool {
	probe, err := os.MkdirTemp(root, "probe")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(probe)
	os.WriteFile(filepath.Join(probe, "a"), nil, 0o644)
	os.WriteFile(filepath.Join(probe, "b"), nil, 0o644)
	names := readdirOrder(t, probe)
	return len(names) == 2 && names[0] == "b"
}

// runAsDu runs prog (du or godu) in dir as "du", so that messages compare.
func runAsDu(t *testing.T, dir, prog string, args []string) string {
	t.Helper()
	cmd := exec.Command(prog, args...)
	cmd.Args[0] = "du"
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LC_ALL=C", "TZ=UTC", "GORACE=atexit_sleep_ms=0")
	r := runCaptured(t, cmd)
	return fmt.Sprintf("stdout:\n%s\nstderr:\n%s\nstatus %d", r.Stdout, r.Stderr, r.Code)
}

// followTree reaches files and directories by several paths: symlinks to
// directories before and after the directory itself in du's order, to
// files, chains of them, symlinks to ancestors (cycles), into the middle
// of a subtree, between operands, dangling ones, and enough directories
// beside them to keep many workers busy.
func followTree() map[string]string {
	spec := map[string]string{
		"t/a/f":                  "file:1000",
		"t/a/x":                  "symlink:../c",
		"t/a/y":                  "symlink:../z/g",
		"t/a/yy":                 "symlink:y",
		"t/b/up":                 "symlink:..",
		"t/b/self":               "symlink:.",
		"t/b/deep/d2/far":        "symlink:../../../c/sub",
		"t/b/deep/d2/farfile":    "symlink:../../../c/sub/k",
		"t/b/dang":               "symlink:nowhere",
		"t/b/deep/d2/dd":         "symlink:nowhere", // du reports it between t/b's two
		"t/b/zz":                 "symlink:nowhere",
		"t/c/h":                  "file:9000",
		"t/c/sub/k":              "file:5000",
		"t/c/sub/back":           "symlink:../../a",
		"t/c/sub/dang":           "symlink:../nowhere",
		"t/c/sub/inner/l":        "file:3000",
		"t/m/":                   "/",
		"t/z/g":                  "file:20000",
		"t/z/dup":                "symlink:g",
		"t/z/sub2":               "symlink:../c/sub/inner",
		"u/own":                  "file:7000",
		"u/v":                    "symlink:../t/c",
		"u/w":                    "symlink:../t/z/g",
		"u/into/t":               "symlink:../../t",
		"t/m/00/later":           "symlink:../29",
		"t/m/29/earlier-target/": "/",
	}
	for i := 0; i < 30; i++ {
		for j := 0; j < 4; j++ {
			spec[fmt.Sprintf("t/m/%02d/s%d/f", i, j)] = fmt.Sprintf("file:%d", 1000*(i+j+1))
		}
		// Each directory of m is reached again from its neighbour.
		spec[fmt.Sprintf("t/m/%02d/next", i)] = fmt.Sprintf("symlink:../%02d/s%d", (i+1)%30, i%4)
		spec[fmt.Sprintf("t/m/%02d/prevfile", i)] = fmt.Sprintf("symlink:../%02d/s0/f", (i+29)%30)
	}
	return spec
}

// TestFollowAllDeterministic: with -L, a file or directory reached by
// several paths is counted, and listed, at the first path in du's order,
// the same on every run with any number of workers, and as du does where
// du's order is godu's (directories listing their entries by name), its
// messages too, in du's order.
func TestFollowAllDeterministic(t *testing.T) {
	needDu(t)
	root, sorted := sortedTree(t, followTree())
	if !sorted {
		t.Log("directories do not list by name here: runs are compared with each other only")
	}
	for _, args := range [][]string{
		{"-aL", "t"}, {"-L", "t"}, {"-L", "-d", "1", "t"}, {"-aL", "-d", "2", "t"}, {"-aLS", "t"},
		{"-aL", "--inodes", "-c", "t"}, {"-aL", "u", "t"}, {"-aL", "t", "u"}, {"-aL", "t/a", "t"},
		{"-L", "t/m", "t/c", "u"}, {"-aLl", "t"}, {"-aL", "-t", "8K", "t"}, {"-aL0", "--apparent-size", "t/c", "t/a"},
		{"-L", "-d", "2", "-c", "u/into", "t"},
	} {
		want := ""
		for _, j := range []string{"1", "2", "4", "16", "16", "3"} {
			got := runAsDu(t, root, godu, append([]string{"-j", j}, args...))
			if want == "" {
				want = got
				if sorted {
					if du := runAsDu(t, root, "du", args); du != got {
						t.Errorf("godu %q:\n%s\nwant (du)\n%s", args, got, du)
					}
				}
				continue
			}
			if got != want {
				t.Errorf("godu -j %s %q differs from the first run:\n%s\nfirst\n%s", j, args, got, want)
				break
			}
		}
	}
	// --json, godu's own: the same each run.
	first := runAsDu(t, root, godu, []string{"--json", "-aL", "-j", "1", "t", "u"})
	for _, j := range []string{"2", "8", "16"} {
		if got := runAsDu(t, root, godu, []string{"--json", "-aL", "-j", j, "t", "u"}); got != first {
			t.Errorf("--json -aL -j %s differs from -j 1:\n%s\nfirst\n%s", j, got, first)
		}
	}
}

// TestOperandFigureInDuOrder: when only the operand is reported (-s,
// -d 0), which path first reaches a file or directory still matters: to
// -S (the operand's own size leaves out what its subdirectories count, so
// a file linked in both counts where du meets it first), and under -L to
// the messages (they name the path du walks) and to --exclude (it
// matches that path).
func TestOperandFigureInDuOrder(t *testing.T) {
	needDu(t)
	root, sorted := sortedTree(t, map[string]string{
		"t/a/f": "link:f", "t/b": "link:f", // -S
		"u/a/l": "symlink:../b", "u/b/f": "file:100000", "u/b/x": "symlink:nowhere", // -L
		"v/a/f": "file:5000", "v/b": "symlink:a/f", // -L, a file
	})
	if !sorted {
		t.Skip("no file system here lists by name")
	}
	for _, args := range [][]string{
		{"-sS", "t"}, {"-sS", "-c", "t"}, {"-d0", "-S", "t"}, {"-sS", "--inodes", "t"}, {"-sSl", "t"},
		{"-sL", "u"}, {"-sL", "--exclude=u/a/l/f", "u"}, {"-sL", "--exclude=u/b/f", "u"}, {"-sLS", "u"},
		{"-sLS", "v"}, {"-sL", "--exclude=v/a/f", "v"}, {"-sL", "--exclude=v/b", "v"},
	} {
		want := runAsDu(t, root, "du", args)
		for _, j := range []string{"-j1", "-j16"} {
			if got := runAsDu(t, root, godu, append([]string{j}, args...)); got != want {
				t.Errorf("%q %s:\n%s\nwant du's\n%s", args, j, got, want)
			}
		}
	}
}

// TestFollowEmptyOperandSlash: under -L, du walks without changing
// directory, and fts then names an empty directory given with a trailing
// '/' without it: "e/" prints as "e", "./" as "." (a directory with
// entries, all excluded or not, keeps its '/').
func TestFollowEmptyOperandSlash(t *testing.T) {
	needDu(t)
	root := t.TempDir()
	for _, d := range []string{"e", "f", "e2"} {
		os.Mkdir(filepath.Join(root, d), 0o755)
	}
	os.WriteFile(filepath.Join(root, "f", "x"), []byte("x"), 0o644)
	os.Symlink("e", filepath.Join(root, "s"))
	for _, c := range []struct {
		dir  string
		args []string
	}{
		{"", []string{"-L", "e/"}}, {"", []string{"-L", "e//"}}, {"", []string{"-sL", "e/"}}, {"", []string{"-aL", "e/"}},
		{"", []string{"-L", "--inodes", "-c", "e/", "e2/"}}, {"", []string{"-L", "s/"}}, {"", []string{"-L", "e"}},
		{"", []string{"-P", "e/"}}, {"", []string{"-H", "s/"}}, {"", []string{"-L", "f/"}}, {"", []string{"-L", "--exclude=x", "f/"}},
		{"e", []string{"-L", "./"}}, {"e", []string{"-L", "."}}, {"", []string{"-L", root + "/e/"}},
	} {
		want := runAsDu(t, filepath.Join(root, c.dir), "du", c.args)
		if got := runAsDu(t, filepath.Join(root, c.dir), godu, c.args); got != want {
			t.Errorf("%q in %q:\n%s\nwant du's\n%s", c.args, c.dir, got, want)
		}
	}
	// The JSON names the same path as the line.
	out := runAsDu(t, root, godu, []string{"-L", "--json", "e/"})
	if !strings.Contains(out, `"e"`) || strings.Contains(out, `"e/"`) {
		t.Errorf("--json -L e/:\n%s", out)
	}
}
