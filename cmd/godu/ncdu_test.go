//go:build unix

package main

import (
	"encoding/json"
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
	"unicode/utf8"

	"github.com/godu-sh/godu/internal/testtree"
)

// TestNcduExport writes random trees (hard links within, symlinks, fifos,
// an excluded name; with -L dangling symlinks) in ncdu's format and has the two real readers load them: ncdu's re-export of the
// file (`ncdu -f FILE -o -`) is the file itself but for the header, and
// gdu's total is godu's.
func TestNcduExport(t *testing.T) {
	for _, tool := range []string{"ncdu", "gdu"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (apt-get install ncdu gdu)", tool)
		}
	}
	header := regexp.MustCompile(`^\[1,2,\{"progname":"[a-z]+","progver":"[^"]*","timestamp":[0-9]+\}`)
	for seed := int64(1); seed <= 4; seed++ {
		root := t.TempDir()
		testtree.Random(t, filepath.Join(root, "t"), rand.New(rand.NewSource(seed)), 4, 8, 4, 12)
		os.WriteFile(filepath.Join(root, "t", "skip.me"), make([]byte, 9000), 0o644)
		for _, args := range [][]string{{}, {"--exclude", "*.me"}, {"-x"}, {"-L"}} {
			file := filepath.Join(root, "export.json")
			r := testtree.Run(t, root, nil, godu, append(append([]string{"-o", file}, args...), "t")...)
			lines := testtree.Run(t, root, nil, godu, append(append([]string{"-s", "-B1"}, args...), "t")...)
			if r.Code != lines.Code || sortedLines(r.Stderr) != sortedLines(lines.Stderr) || r.Stdout != "" {
				t.Fatalf("%q: exit %d, stdout %q, stderr %q; without -o: %d %q", args, r.Code, r.Stdout, r.Stderr, lines.Code, lines.Stderr)
			}
			ours, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if !json.Valid(ours) {
				t.Fatalf("%q: not JSON:\n%s", args, ours)
			}
			if args == nil && !strings.Contains(string(ours), `"hlnkc":true`) {
				t.Errorf("no hard link in the export:\n%s", ours)
			}
			again := testtree.Run(t, root, nil, "ncdu", "-f", file, "-o", "-")
			if again.Code != 0 {
				t.Fatalf("%q: ncdu -f: exit %d: %s", args, again.Code, again.Stderr)
			}
			if got, want := header.ReplaceAllString(again.Stdout, ""), strings.TrimSuffix(header.ReplaceAllString(string(ours), ""), "\n"); got != want {
				t.Fatalf("%q: ncdu understood\n%s\nfrom\n%s", args, got, want)
			}
			// gdu: allocated bytes (for apparent sizes it counts 4,096 bytes
			// per directory of its own accord), and 4,096 for a directory
			// the export gives neither size (tmpfs: directories hold no
			// blocks, and their apparent size is never exported).
			g := testtree.Run(t, root, nil, "gdu", "-f", file, "-n", "-p", "-s", "--no-prefix")
			gf, df := strings.Fields(g.Stdout), strings.Fields(lines.Stdout)
			if g.Code != 0 || len(gf) == 0 || len(df) == 0 {
				t.Fatalf("%q: gdu: %d %q %q; godu %q", args, g.Code, g.Stdout, g.Stderr, lines.Stdout)
			}
			total, err := strconv.ParseInt(df[0], 10, 64)
			if err != nil {
				t.Fatalf("godu -sB1: %q", lines.Stdout)
			}
			if want := strconv.FormatInt(total+4096*sizelessDirs(t, ours), 10); gf[0] != want {
				t.Errorf("seed %d %q: gdu totals %s, godu %s (%s with gdu's own 4,096 bytes a directory without sizes)", seed, args, gf[0], df[0], want)
			}
		}
	}
}

// TestNcduExportNames: names of every byte value load in ncdu, and the
// export decodes back to the exact bytes (\udcXX for a byte of an invalid
// sequence).
func TestNcduExportNames(t *testing.T) {
	if _, err := exec.LookPath("ncdu"); err != nil {
		t.Skip("ncdu is not installed")
	}
	root := t.TempDir()
	dir := filepath.Join(root, "t")
	os.Mkdir(dir, 0o755)
	want := map[string]bool{}
	for b := 1; b < 256; b++ {
		if b == '/' || b == '.' {
			continue
		}
		name := "n" + string([]byte{byte(b)}) + "é\xc3"
		os.WriteFile(filepath.Join(dir, name), nil, 0o644)
		want[name] = true
	}
	r := testtree.Run(t, root, nil, godu, "--ncdu-export=-", "t")
	if r.Code != 0 || !json.Valid([]byte(r.Stdout)) || !utf8.ValidString(r.Stdout) {
		t.Fatalf("exit %d, valid JSON %v, UTF-8 %v: %s", r.Code, json.Valid([]byte(r.Stdout)), utf8.ValidString(r.Stdout), r.Stderr)
	}
	for _, m := range regexp.MustCompile(`\{"name":("(?:[^"\\]|\\.)*")`).FindAllStringSubmatch(r.Stdout, -1)[1:] {
		name := unescapeSurrogates(t, m[1])
		if !want[name] {
			t.Errorf("name %s decodes to %q, not a name in the tree", m[1], name)
		}
		delete(want, name)
	}
	if len(want) > 0 {
		t.Errorf("%d names missing from the export", len(want))
	}
	os.WriteFile(filepath.Join(root, "x.json"), []byte(r.Stdout), 0o644)
	if l := testtree.Run(t, root, nil, "ncdu", "-f", "x.json", "-o", "-"); l.Code != 0 {
		t.Fatalf("ncdu -f: exit %d: %s", l.Code, l.Stderr)
	}
}

// unescapeSurrogates decodes a JSON string, each \udcXX escape of a lone
// low surrogate U+DC80..U+DCFF into the byte XX.
func unescapeSurrogates(t *testing.T, s string) string {
	var out []byte
	for i := 1; i < len(s)-1; i++ {
		c := s[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		switch s[i] {
		case 'u':
			v, err := strconv.ParseUint(s[i+1:i+5], 16, 32)
			if err != nil {
				t.Fatalf("bad escape in %s", s)
			}
			if v >= 0xdc80 && v <= 0xdcff {
				out = append(out, byte(v-0xdc00))
			} else {
				out = append(out, string(rune(v))...)
			}
			i += 4
		default:
			out = append(out, s[i])
		}
	}
	return string(out)
}

// sizelessDirs counts the directories of an ncdu export with neither an
// asize nor a dsize.
func sizelessDirs(t *testing.T, export []byte) int64 {
	var doc []json.RawMessage
	if err := json.Unmarshal(export, &doc); err != nil || len(doc) < 4 {
		t.Fatalf("export: %v", err)
	}
	var count func(raw json.RawMessage) int64
	count = func(raw json.RawMessage) int64 {
		var dir []json.RawMessage
		if json.Unmarshal(raw, &dir) != nil || len(dir) == 0 {
			return 0 // a file's object
		}
		var info map[string]any
		if err := json.Unmarshal(dir[0], &info); err != nil {
			t.Fatalf("export: a directory's info: %v", err)
		}
		var n int64
		if info["asize"] == nil && info["dsize"] == nil {
			n++
		}
		for _, c := range dir[1:] {
			n += count(c)
		}
		return n
	}
	return count(doc[3])
}

func sortedLines(s string) string {
	l := strings.Split(s, "\n")
	sort.Strings(l)
	return strings.Join(l, "\n")
}

// The export holds one directory: a file operand, or several operands, are
// errors (ncdu would refuse the file).
func TestNcduExportOperands(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "f"), nil, 0o644)
	os.Mkdir(filepath.Join(root, "d"), 0o755)
	os.WriteFile(filepath.Join(root, "nul"), []byte{0}, 0o644)
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-o", "-", "f"}, "godu: cannot export 'f': Not a directory\n"},
		{[]string{"--ncdu-export=-", "d", "d"}, "godu: --ncdu-export takes one operand\n"},
		{[]string{"-o", "no/such/dir/x.json", "d"}, "godu: cannot open 'no/such/dir/x.json' for writing: No such file or directory\n"},
		{[]string{"-o", "x.json", ""}, "godu: invalid zero-length file name\n"},
		{[]string{"-o", "x.json", "--files0-from=nul"}, "godu: nul:1: invalid zero-length file name\n"},
	} {
		r := testtree.Run(t, root, nil, godu, c.args...)
		if r.Code != 1 || r.Stderr != c.msg || r.Stdout != "" {
			t.Errorf("%q: exit %d, %q, stdout %q; want 1, %q", c.args, r.Code, r.Stderr, r.Stdout, c.msg)
		}
		if _, err := os.Stat(filepath.Join(root, "x.json")); err == nil {
			t.Errorf("%q made x.json", c.args)
		}
	}
}

// TestJSONWithExport: --json and --ncdu-export each replace du's lines, so
// together they are a usage error, as du's own conflicting options are:
// nothing written (no file made), status 1. (They wrote both documents
// into one stream, and exited 0.)
func TestJSONWithExport(t *testing.T) {
	root := t.TempDir()
	testtree.Build(t, root, map[string]string{"d/f": "file:10"})
	for _, args := range [][]string{{"--json", "-o", "-", "d"}, {"-o", "out.json", "--json", "d"}, {"--ncdu-export=out.json", "--js", "d"}} {
		got := invoke(t, root, nil, "", godu, args)
		want := testtree.Result{Stderr: "du: cannot both print JSON and export in ncdu's format\nTry 'du --help' for more information.\n", Code: 1}
		if got != want {
			t.Errorf("godu %q: %+v, want %+v", args, got, want)
		}
		if _, err := os.Stat(filepath.Join(root, "out.json")); err == nil {
			t.Errorf("godu %q made out.json", args)
		}
	}
}

// TestNcduExportNoRoot: an operand that gives no tree still exports one
// that ncdu and gdu load: excluded (status 0, as du prints nothing), its
// entry marked "excluded"; missing, or unreadable by nobody (status 1 and
// du's message), marked "read_error". (They wrote the header alone, which
// neither reader loads, the excluded one with status 0.)
func TestNcduExportNoRoot(t *testing.T) {
	for _, tool := range []string{"ncdu", "gdu"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (apt-get install ncdu gdu)", tool)
		}
	}
	root := t.TempDir()
	testtree.Build(t, root, map[string]string{"d/f": "file:5000", "locked/f": "file:10"})
	cases := []struct {
		args []string
		cred *syscall.Credential
		mark string
	}{
		{[]string{"--exclude=d", "d"}, nil, `"excluded":"pattern"`},
		{[]string{"--exclude=*", "d/"}, nil, `"excluded":"pattern"`},
		{[]string{"none"}, nil, `"read_error":true`},
		{[]string{"-L", "none"}, nil, `"read_error":true`},
	}
	if os.Getuid() == 0 {
		os.Chmod(filepath.Join(root, "locked"), 0)
		openUp(t, root)
		cases = append(cases, struct {
			args []string
			cred *syscall.Credential
			mark string
		}{[]string{"locked"}, &syscall.Credential{Uid: 65534, Gid: 65534}, `"read_error":true`})
	}
	out := filepath.Join(t.TempDir(), "x.json")
	os.Chmod(filepath.Dir(out), 0o777)
	for _, c := range cases {
		os.Remove(out)
		r := testtree.Run(t, root, c.cred, godu, append([]string{"-o", out}, c.args...)...)
		want := testtree.Run(t, root, c.cred, "du", append([]string{"-s"}, c.args...)...)
		if r.Code != want.Code || r.Stderr != strings.ReplaceAll(want.Stderr, "du: ", "godu: ") || r.Stdout != "" {
			t.Errorf("%q: exit %d, %q, %q; du %d, %q", c.args, r.Code, r.Stdout, r.Stderr, want.Code, want.Stderr)
		}
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(got) || !strings.Contains(string(got), c.mark) {
			t.Errorf("%q: export without %s:\n%s", c.args, c.mark, got)
		}
		if n := testtree.Run(t, root, nil, "ncdu", "-f", out, "-o", "-"); n.Code != 0 {
			t.Errorf("%q: ncdu -f: %d %s\n%s", c.args, n.Code, n.Stderr, got)
		}
		if g := testtree.Run(t, root, nil, "gdu", "-f", out, "-n", "-p"); g.Code != 0 {
			t.Errorf("%q: gdu -f: %d %s\n%s", c.args, g.Code, g.Stderr, got)
		}
	}
}

// TestNcduExportAsNcduScans: as a user who may not read or search some
// directories, godu's export holds what ncdu's own scan exports (ncdu -o),
// entry for entry: names, allocated sizes, files' apparent sizes (a
// directory's is not one, as du counts since coreutils 9.2) and
// read_error. A directory that can be listed but not searched, whose
// entries cannot be examined, is marked and has no entries, as ncdu
// (which cannot enter it) exports it, --exclude or not; du's messages
// stay du's. Under -L a directory whose entries are all symlinks to what
// the user may not reach is searched all the same: ncdu enters it, and
// godu lists its entries (each du's error, not ncdu's notreg entry).
func TestNcduExportAsNcduScans(t *testing.T) {
	cred := nobody(t)
	if _, err := exec.LookPath("ncdu"); err != nil {
		t.Skip("ncdu is not installed (apt-get install ncdu)")
	}
	root := t.TempDir()
	testtree.Build(t, root, map[string]string{
		"t/ok/f": "file:5000", "t/ok/sub/g": "file:10",
		"t/ok/r2/a": "file:9000", "t/ok/r2/b/c": "file:1",
		"t/rx/f": "file:100",
		"t/r/f":  "file:7000", "t/r/sub/g": "file:3", "t/r/zz": "file:1",
		"t/x/f":    "file:100",
		"t/none/f": "file:100",
	})
	links := filepath.Join(root, "t", "ok", "links")
	os.Mkdir(links, 0o755)
	os.Symlink(filepath.Join(root, "t", "r", "f"), filepath.Join(links, "l"))
	os.Symlink(filepath.Join(root, "t", "none", "f"), filepath.Join(links, "m"))
	for dir, mode := range map[string]os.FileMode{"t/ok/r2": 0o444, "t/rx": 0o555, "t/r": 0o444, "t/x": 0o111, "t/none": 0} {
		os.Chmod(filepath.Join(root, dir), mode)
	}
	openUp(t, root)
	t.Cleanup(func() {
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if d != nil && d.IsDir() {
				os.Chmod(p, 0o755)
			}
			return nil
		})
	})
	out := filepath.Join(t.TempDir(), "x.json")
	os.Chmod(filepath.Dir(out), 0o777)
	for _, args := range [][]string{{"t"}, {"--exclude", "f", "t"}, {"-L", "t/ok/links"}} {
		os.Remove(out)
		r := testtree.Run(t, root, cred, godu, append([]string{"-o", out}, args...)...)
		want := testtree.Run(t, root, cred, "du", append([]string{"-s"}, args...)...)
		if r.Code != want.Code || sortedLines(r.Stderr) != sortedLines(strings.ReplaceAll(want.Stderr, "du: ", "godu: ")) {
			t.Errorf("%q: exit %d, %q; du %d, %q", args, r.Code, r.Stderr, want.Code, want.Stderr)
		}
		ours, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		theirs := testtree.Run(t, root, cred, "ncdu", append([]string{"--ignore-config", "-0", "-o", "-"}, args...)...)
		if theirs.Code != 0 {
			t.Fatalf("%q: ncdu -o: %d %s", args, theirs.Code, theirs.Stderr)
		}
		got, want2 := ncduEntries(t, ours), ncduEntries(t, []byte(theirs.Stdout))
		if args[0] == "-L" {
			// ncdu exports an entry it cannot follow as the symlink
			// itself (notreg); du and godu report its error.
			want2 = symlinkEntry.ReplaceAllString(want2, "asize=0 dsize=0 read_error=true notreg=false")
		}
		if got != want2 {
			t.Errorf("%q: godu's export:\n%s\nncdu's scan:\n%s\n(godu's document:\n%s)", args, got, want2, ours)
		}
	}
}

// symlinkEntry is a symlink's entry in ncduEntries' lines (a long
// symlink takes a block on ext4).
var symlinkEntry = regexp.MustCompile(`asize=[0-9]+ dsize=[0-9]+ read_error=false notreg=true`)

// ncduEntries lists an ncdu export's entries one a line, by path, sorted:
// the fields both scanners give, a directory's apparent size left out.
func ncduEntries(t *testing.T, doc []byte) string {
	var top []json.RawMessage
	if err := json.Unmarshal(doc, &top); err != nil || len(top) < 4 {
		t.Fatalf("export: %v\n%s", err, doc)
	}
	var lines []string
	var walk func(dir string, raw json.RawMessage)
	walk = func(dir string, raw json.RawMessage) {
		var items []json.RawMessage
		isDir := json.Unmarshal(raw, &items) == nil
		if !isDir {
			items = []json.RawMessage{raw}
		}
		var e struct {
			Name      string `json:"name"`
			Asize     int64  `json:"asize"`
			Dsize     int64  `json:"dsize"`
			ReadError bool   `json:"read_error"`
			Notreg    bool   `json:"notreg"`
			Excluded  string `json:"excluded"`
		}
		if err := json.Unmarshal(items[0], &e); err != nil {
			t.Fatalf("entry %s: %v", items[0], err)
		}
		path := e.Name
		if dir != "" {
			path = dir + "/" + e.Name
		}
		if isDir {
			e.Asize = 0
		}
		lines = append(lines, fmt.Sprintf("%s dir=%v asize=%d dsize=%d read_error=%v notreg=%v excluded=%q",
			path, isDir, e.Asize, e.Dsize, e.ReadError, e.Notreg, e.Excluded))
		for _, c := range items[1:] {
			walk(path, c)
		}
	}
	walk("", top[3])
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}
