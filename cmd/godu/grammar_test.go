//go:build unix

package main

import (
	"bytes"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/godu-sh/godu/internal/testtree"
)

// invoke runs one program of a differential case. Every godu run of the
// generated cases goes through here, and a share of them runs again on a
// pseudo-terminal (checkOnTerminal). Both programs get argv[0] "du", so their
// messages are compared byte for byte.
func invoke(t *testing.T, dir string, env []string, stdin string, name string, args []string) testtree.Result {
	t.Helper()
	fix := func(s string) string { return s }
	if name == "du" {
		args, fix = asDu92(args, env)
	}
	cmd := exec.Command(name, args...)
	cmd.Args[0] = "du"
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Env = append(os.Environ(), "LC_ALL=C", "TZ=UTC", "GORACE=atexit_sleep_ms=0")
	cmd.Env = append(cmd.Env, env...)
	res := runCaptured(t, cmd)
	if name != "du" {
		checkOnTerminal(t, dir, env, stdin, name, args, res)
	}
	res.Stderr = fix(res.Stderr)
	return res
}

// runCaptured runs cmd with its standard output and error captured (unless
// already set) and returns them with its exit status.
func runCaptured(t testing.TB, cmd *exec.Cmd) testtree.Result {
	t.Helper()
	var o, e bytes.Buffer
	if cmd.Stdout == nil {
		cmd.Stdout = &o
	}
	if cmd.Stderr == nil {
		cmd.Stderr = &e
	}
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return testtree.Result{Stdout: o.String(), Stderr: e.String(), Code: code}
}

// seedOffset shifts the generators' fixed seeds by $GODU_TEST_SEED, to
// explore more cases by hand; the suite runs with 0.
func seedOffset() int64 {
	n, _ := strconv.ParseInt(os.Getenv("GODU_TEST_SEED"), 10, 64)
	return n
}

// grammarTree has no hard links and no subdirectories below its
// operands' children, and the generated cases use no apparent sizes, so
// du 9.1 and 9.2+ print the same figures.
func grammarTree(t *testing.T) string {
	root := t.TempDir()
	testtree.Build(t, root, map[string]string{
		"d/a": "file:5000", "d/b": "file:100", "help/f": "file:3000", "completion/f": "file:1",
		"__complete/f": "file:9000", "-": "file:7", "pats": "file:0",
	})
	os.WriteFile(filepath.Join(root, "pats"), []byte("a  \nnope\r\n\n  \n"), 0o644)
	freezeDirAtimes(t, root)
	return root
}

// freezeDirAtimes sets every directory's access time an hour ahead, so
// that reading it (relatime) does not change it between du's run and
// godu's: --time=atime shows the same on both.
func freezeDirAtimes(t *testing.T, root string) {
	ahead := time.Now().Add(time.Hour)
	filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
		if err == nil && e.IsDir() {
			if st, err := os.Stat(p); err == nil {
				os.Chtimes(p, ahead, st.ModTime())
			}
		}
		return nil
	})
}

func sameRun(t *testing.T, root string, env, args []string) testtree.Result {
	t.Helper()
	return sameRunIn(t, root, env, "", args)
}

// sameRunIn is sameRun with stdin as standard input.
func sameRunIn(t *testing.T, root string, env []string, stdin string, args []string) testtree.Result {
	t.Helper()
	want := invoke(t, root, env, stdin, "du", args)
	got := invoke(t, root, env, stdin, godu, args)
	nul := strings.NewReplacer("\x00", "\n")
	wl, gl := testtree.Lines(nul.Replace(want.Stdout), false), testtree.Lines(nul.Replace(got.Stdout), false)
	if strings.Join(wl, "\n") != strings.Join(gl, "\n") || want.Stderr != got.Stderr || want.Code != got.Code {
		t.Errorf("%q %q:\n got %q %q %d\nwant %q %q %d", env, args, gl, got.Stderr, got.Code, wl, want.Stderr, want.Code)
	}
	return want
}

// TestGeneratedOptionSyntax: random command lines of du's options, long
// names abbreviated at random, clusters, values given to options without
// arguments, unknown options, "--", "-", operands named like commands,
// with and without POSIXLY_CORRECT (set to a value or empty).
func TestGeneratedOptionSyntax(t *testing.T) {
	needDu(t)
	root := grammarTree(t)
	longs := []string{"all", "block-size=1K", "count-links", "dereference", "dereference-args", "exclude=a",
		"exclude-from=pats", "human-readable", "inodes", "si", "max-depth=1", "null", "no-dereference",
		"one-file-system", "separate-dirs", "summarize", "total", "threshold=1", "time", "time=ctime", "time-style=iso",
		"time-style=bogus", "time-style=+%s%n", "files0-from=pats", "exclude=d",
		"foo", "block-size", "max-depth", "time=atime", "summarize=x", "null=", "h", "s", "d", "t", "e", "n", "de", "ex", "x=1"}
	words := []string{"d", "help", "completion", "__complete", "-", "--", "nope", "-s=x", "-d0", "-sd", "1", "-q", "-t", "-Bk", "-0", "-cS", "-D", "-HLP", "-X", "pats", "-k", "-m", "-lx"}
	r := rand.New(rand.NewSource(3 + seedOffset()))
	for runs := 0; runs < 300; {
		var args []string
		for n := r.Intn(5); n >= 0; n-- {
			if r.Intn(2) == 0 {
				args = append(args, words[r.Intn(len(words))])
				continue
			}
			l := longs[r.Intn(len(longs))]
			name, val, hasVal := strings.Cut(l, "=")
			name = name[:1+r.Intn(len(name))]
			if hasVal {
				name += "=" + val
			}
			args = append(args, "--"+name)
		}
		var env []string
		if r.Intn(4) == 0 {
			// Set is what counts, to getopt as to du: empty too.
			env = []string{"POSIXLY_CORRECT=" + []string{"1", ""}[r.Intn(2)]}
		}
		if helpOrVersion(args) {
			continue
		}
		sameRun(t, root, env, args)
		runs++
	}
}

// helpOrVersion: --help's text is godu's own; those lines are left out.
func helpOrVersion(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		name, _, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if strings.HasPrefix(a, "--") && len(name) >= 2 && (strings.HasPrefix("help", name) || strings.HasPrefix("version", name)) || a == "--v" {
			return true
		}
	}
	return false
}

// TestGeneratedNumbers: -d, -t, -B and the unit variables with numbers
// made of blanks, signs, bases, digits, unit letters and garbage.
func TestGeneratedNumbers(t *testing.T) {
	needDu(t)
	root := grammarTree(t)
	r := rand.New(rand.NewSource(4 + seedOffset()))
	number := func() string {
		var b strings.Builder
		b.WriteString([]string{"", "", " ", "\t", "'"}[r.Intn(5)])
		b.WriteString([]string{"", "", "+", "-"}[r.Intn(4)])
		b.WriteString([]string{"", "", "0", "0x", "0X"}[r.Intn(5)])
		digits := []string{"", "1", "7", "12", "4096", "08", "ff", "99999999999999999999", "18446744073709551615", "9223372036854775807", "9223372036854775808"}
		b.WriteString(digits[r.Intn(len(digits))])
		b.WriteString([]string{"", "", "K", "k", "M", "m", "G", "g", "T", "t", "P", "p", "E", "e", "Z", "z", "Y", "y", "R", "Q", "b", "c", "w", "B", "x", " "}[r.Intn(26)])
		b.WriteString([]string{"", "", "", "B", "iB", "D", "i", "BB", "x"}[r.Intn(9)])
		return b.String()
	}
	for i := 0; i < 400; i++ {
		var args, env []string
		for n := 1 + r.Intn(2); n > 0; n-- {
			switch r.Intn(7) {
			case 0:
				args = append(args, "-d", number())
			case 1:
				args = append(args, "--max-d="+number())
			case 2:
				args = append(args, "-t", number())
			case 3:
				args = append(args, "--thr="+number())
			case 4:
				args = append(args, "-B"+number())
			case 5:
				args = append(args, "--block-s="+number())
			case 6:
				env = append(env, []string{"DU_BLOCK_SIZE", "BLOCK_SIZE", "BLOCKSIZE"}[r.Intn(3)]+"="+number())
			}
		}
		if r.Intn(4) == 0 {
			args = append(args, []string{"-s", "-h", "-k", "--si", "-m", "-c", "-a"}[r.Intn(7)])
		}
		if r.Intn(5) == 0 {
			env = append(env, "POSIXLY_CORRECT=1")
		}
		sameRun(t, root, env, append(args, "d", "help"))
	}
}

// TestGeneratedTimes: --time words, --time-style and TIME_STYLE values
// (words, abbreviations, posix- prefixes, locale, random +FORMATs with
// newlines) and TZ values (zone files, POSIX rules, invalid ones), on
// files with random times from 1902 to 2262.
func TestGeneratedTimes(t *testing.T) {
	needDu(t)
	root := grammarTree(t)
	r := rand.New(rand.NewSource(5 + seedOffset()))
	convs := "aAbBcCdDeFgGhHIjklmMnNpPqrRsStTuUVwWxXyYzZ%:"
	format := func() string {
		var b strings.Builder
		b.WriteByte('+')
		for n := r.Intn(4); n >= 0; n-- {
			b.WriteString([]string{"", "", " ", "\n", "x"}[r.Intn(5)])
			b.WriteByte('%')
			b.WriteString([]string{"", "", "", "_", "-", "0", "^", "#", "+", "_^"}[r.Intn(10)])
			b.WriteString([]string{"", "", "", "3", "12"}[r.Intn(5)])
			b.WriteString([]string{"", "", "", "", "E", "O"}[r.Intn(6)])
			b.WriteByte(convs[r.Intn(len(convs))])
			if r.Intn(8) == 0 {
				b.WriteString(":z")
			}
		}
		return b.String()
	}
	styles := []string{"full-iso", "long-iso", "iso", "f", "l", "i", "is", "", "locale", "posix-iso", "posix-posix-long-iso", "posix-", "bogus", "+%s", "long"}
	words := []string{"", "=atime", "=access", "=use", "=ctime", "=status", "=a", "=c", "=s", "=u", "=", "=mtime", "=bogus", "=at"}
	zones := []string{"UTC", "Europe/Paris", ":America/New_York", "Asia/Kolkata", "EST5EDT,M3.2.0,M11.1.0", "CET-1CEST,M3.5.0,M10.5.0/3",
		"<+0330>-3:30", "foo", "Nope/Zone", "A", "", "JST-9", "EST5EDT,garbage", "XYZ-14", "EST5x", "EST5J10"}
	// Left out: a daylight name without rules ("AAA3BBB"), for which
	// glibc replays the posixrules file's history; godu uses today's
	// U.S. rules, the same from 2007 on.
	for i := 0; i < 250; i++ {
		for _, f := range []string{"d/a", "d/b", "help/f"} {
			sec := r.Int63n(9214646400) - 2145916800 // 1902 to 2262
			tm := time.Unix(sec, r.Int63n(1e9))
			os.Chtimes(filepath.Join(root, f), tm, tm)
		}
		freezeDirAtimes(t, root)
		args := []string{"-a", "--time" + words[r.Intn(len(words))]}
		var env []string
		switch r.Intn(4) {
		case 0:
			args = append(args, "--time-style="+styles[r.Intn(len(styles))])
		case 1:
			args = append(args, "--time-style="+format())
		case 2:
			env = append(env, "TIME_STYLE="+[]string{styles[r.Intn(len(styles))], format()}[r.Intn(2)])
		}
		if r.Intn(6) == 0 {
			args[1] = "--tim" // abbreviated, no argument
		}
		env = append(env, "TZ="+zones[r.Intn(len(zones))])
		sameRun(t, root, env, append(args, "d", "help"))
	}
}

// TestGeneratedExclusion: random --exclude patterns (wildcards, brackets,
// classes, ranges, escapes, characters of several bytes) and -X files
// (trailing blanks, CR, blank lines, standard input), in the C locale
// (bytes) and C.UTF-8 (characters, then bytes), against names of every
// kind and against the operands themselves.
func TestGeneratedExclusion(t *testing.T) {
	needDu(t)
	root := t.TempDir()
	names := []string{"a", "ab", "b.c", "é", "éé", "ß", "中文", "A", "Z9", "[x]", "*", "a\\b", "\xff", "\xc3", "x y", "-", ".hid", "!", "^", "ü.txt"}
	files := map[string]string{}
	for _, n := range names {
		files["t/"+n] = "file:100"
		files["t/sub/"+n] = "file:10"
	}
	testtree.Build(t, root, files)
	pieces := []string{"*", "?", "a", "b", "é", "ß", "中", "\xff", "\xc3", ".", "/", "\\", "\\*", "[", "]", "[!a]", "[^a]", "[a-c]", "[]a]",
		"[[:alpha:]]", "[[:digit:]]", "[[:upper:]]", "[[:lower:]]", "[[:punct:]]", "[[:bogus:]]", "[é-ü]", "[a-", "[!é]", "[\\]]", "t", "sub", "x y", "[[:alpha:]", "[:", "-",
		"[[.a.]]", "[[=a=]]", "[[.].]]", "[[.-.]]", "[[.a.]-c]", "[a-[.c.]]", "[[.ab.]]", "[[.a]", "[[=]", "[[.é.]]", "[![.a.]]", "[[===]]", "[[.[.]]", "[[=é=]]"}
	r := rand.New(rand.NewSource(6 + seedOffset()))
	pattern := func() string {
		var b strings.Builder
		for n := 1 + r.Intn(3); n > 0; n-- {
			b.WriteString(pieces[r.Intn(len(pieces))])
		}
		return b.String()
	}
	excluding := 0
	for i := 0; i < 250; i++ {
		env := []string{"LC_ALL=" + []string{"C", "C.UTF-8"}[r.Intn(2)]}
		if r.Intn(4) == 0 { // '^' is then no negation, even set empty
			env = append(env, "POSIXLY_CORRECT="+[]string{"1", ""}[r.Intn(2)])
		}
		args := []string{"-a"}
		stdin := ""
		for n := 1 + r.Intn(2); n > 0; n-- {
			if r.Intn(3) == 0 {
				var lines []string
				for k := r.Intn(4); k >= 0; k-- {
					lines = append(lines, pattern()+[]string{"", " ", "\t", "\r", " \r ", ""}[r.Intn(6)])
				}
				lines = append(lines, []string{"", " ", "\n"}[r.Intn(3)])
				if stdin == "" && r.Intn(2) == 0 {
					stdin = strings.Join(lines, "\n")
					args = append(args, "-X", "-")
					continue
				}
				file := filepath.Join(root, "x"+strconv.Itoa(i)+strconv.Itoa(n))
				os.WriteFile(file, []byte(strings.Join(lines, "\n")), 0o644)
				args = append(args, "-X", file)
			} else {
				args = append(args, "--exclude="+pattern())
			}
		}
		ops := []string{"t"}
		if r.Intn(3) == 0 {
			ops = []string{"t/sub", "t/" + names[r.Intn(len(names))]}
		}
		if want := sameRunIn(t, root, env, stdin, append(args, ops...)); strings.Count(want.Stdout, "\n") < len(names)*2+2 {
			excluding++
		}
	}
	if excluding < 50 {
		t.Errorf("only %d of the generated patterns exclude anything", excluding)
	}
}

// TestEveryAbbreviation: every prefix of every du long option, bare and
// with a value, means in godu what it means in du, though godu's own
// options (--no-progress, --completion, --stats ...) share their first
// letters; and a prefix du does not know that names a godu option
// alone is that option.
func TestEveryAbbreviation(t *testing.T) {
	needDu(t)
	root := grammarTree(t)
	n := 0
	for _, o := range optionTable() {
		if o.long == "" {
			continue
		}
		for l := 1; l <= len(o.long); l++ {
			prefix := "--" + o.long[:l]
			for _, a := range []string{prefix, prefix + "=1"} {
				args := []string{"-x", a, "d/a"} // a file: --apparent-size agrees with du 9.1
				if o.godu {
					if du := invoke(t, root, nil, "", "du", args); !strings.Contains(du.Stderr, "unrecognized option") {
						continue // du knows it: its meaning was checked with du's own options
					}
					if got := invoke(t, root, nil, "", godu, []string{"-x", a, "--no-progress", "d/a"}); strings.Contains(got.Stderr, "unrecognized") ||
						strings.Contains(got.Stderr, "ambiguous") && !strings.Contains(got.Stderr, "'--"+o.long+"'") {
						t.Errorf("%s: %q", a, got.Stderr)
					}
					n++
					continue
				}
				if helpOrVersion([]string{a}) {
					continue
				}
				sameRun(t, root, nil, args)
				n++
			}
		}
	}
	t.Logf("%d command lines", n)
}
