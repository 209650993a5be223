//go:build unix

package main

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/godu-sh/godu/internal/testtree"
)

// TestGeneratedOperands: random lists of operands that overlap (a file,
// then its directory; a directory twice; a symlink to an earlier one),
// with the options that change what is remembered: every
// entry already counted under an earlier operand is left out, as du
// leaves it out. No hard links (which link du counts depends on its
// reading order; main_test masks those figures). No apparent sizes: du 9.1 adds directories' own sizes
// to them, 9.2+ does not.
func TestGeneratedOperands(t *testing.T) {
	needDu(t)
	root := t.TempDir()
	testtree.Build(t, root, map[string]string{
		"t/a": "file:5000", "t/b": "file:9000", "t/s/c": "file:20000", "t/s/d/e": "file:3000",
		"u/x": "file:7000", "t/to-s": "symlink:s", "t/to-a": "symlink:a", "u/to-t": "symlink:../t",
	})
	paths := []string{"t", "t/a", "t/b", "t/s", "t/s/c", "t/s/d", "t/s/d/e", "u", "u/x", "t/to-s", "t/to-a", "u/to-t", "t/", "./t", "t//s", "missing"}
	opts := [][]string{{}, {"-a"}, {"-s"}, {"-c"}, {"-ac"}, {"-H"}, {"-l"}, {"-la"}, {"-d", "1"}, {"--inodes", "-a"}, {"-S", "-a"}, {"-sc", "-L"}}
	// Under -L, s and to-s are one directory (a and to-a one file): du
	// lists it at the path it reads first, godu at the first by name
	// (README: Differences from GNU du). The same where t lists them in
	// that order (ext4's small directories list in the order made), not
	// on tmpfs, which lists the newest first.
	if listedInOrder(t, filepath.Join(root, "t"), "a", "to-a", "s", "to-s") {
		opts = append(opts, []string{"-L"})
	} else {
		t.Log("t lists to-s before s or to-a before a: -L left out")
	}
	r := rand.New(rand.NewSource(7 + seedOffset()))
	for i := 0; i < 200; i++ {
		args := append([]string{}, opts[r.Intn(len(opts))]...)
		for n := 2 + r.Intn(3); n > 0; n-- {
			args = append(args, paths[r.Intn(len(paths))])
		}
		sameRun(t, root, nil, args)
	}
}

// readdirOrder is dir's names in the order the system lists them.
func readdirOrder(t *testing.T, dir string) []string {
	f, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// listedInOrder reports whether directory dir lists each pair of names in
// pairs in that order.
func listedInOrder(t *testing.T, dir string, pairs ...string) bool {
	at := map[string]int{}
	for i, n := range readdirOrder(t, dir) {
		at[n] = i
	}
	for i := 0; i+1 < len(pairs); i += 2 {
		if at[pairs[i]] > at[pairs[i+1]] {
			return false
		}
	}
	return true
}

// TestGeneratedHugeSums: apparent sizes near 2^63 on a file system that
// allows them (tmpfs), summed with -c and printed in every unit, block
// sizes near 2^64 among them: as du prints them, sums past 2^64-1
// saturated to "Infinity", and a size whose remainder by the block size
// is over 2^64/10 scaled as du's unsigned arithmetic scales it (wrapping:
// 2^62 bytes in blocks of 15 EiB print 0). Files only: their apparent
// sizes are the same in every du version.
func TestGeneratedHugeSums(t *testing.T) {
	needDu(t)
	dir, err := os.MkdirTemp("/dev/shm", "godu-sums-")
	if err != nil {
		t.Skip("no /dev/shm")
	}
	defer os.RemoveAll(dir)
	sizes := map[string]uint64{"max": 1<<63 - 1, "max-1": 1<<63 - 2, "half": 1 << 62, "one": 1, "one2": 1, "tb": 1 << 40, "odd": 1234567890123}
	for name, size := range sizes {
		if err := syscall.Truncate(filepath.Join(dir, name), int64(size)); err != nil {
			f, _ := os.Create(filepath.Join(dir, name))
			f.Close()
			if err := syscall.Truncate(filepath.Join(dir, name), int64(size)); err != nil {
				t.Skipf("%s: %v", dir, err)
			}
		}
	}
	names := []string{"max", "max-1", "half", "one", "tb", "odd"}
	units := [][]string{{"-b"}, {"--apparent-size", "-h"}, {"--apparent-size", "--si"}, {"--apparent-size", "-k"}, {"--apparent-size", "-BT"},
		{"--apparent-size", "-B1KB"}, {"--apparent-size", "-B", "3"}, {"--apparent-size", "-BE"}, {"--apparent-size", "-B15E"},
		{"--apparent-size", "-B", "18446744073709551615"}, {"--apparent-size", "-B", "9223372036854775809"}, {"--apparent-size", "-B7E"}}
	r := rand.New(rand.NewSource(8 + seedOffset()))
	cases := [][]string{{"max", "max", "one"}, {"max", "max-1", "one", "one"}, {"max", "max"}} // max twice: counted once
	for i := 0; i < 60; i++ {
		var ops []string
		for n := 1 + r.Intn(4); n > 0; n-- {
			name := names[r.Intn(len(names))]
			if !contains(ops, name) {
				ops = append(ops, name)
			}
		}
		cases = append(cases, ops)
	}
	cases = append(cases, []string{"max", "max-1", "half"}, []string{"max", "max-1", "one", "one2", "half", "tb"})
	for _, ops := range cases {
		args := append(append([]string{"-c"}, units[r.Intn(len(units))]...), ops...)
		sameRun(t, dir, nil, args)
	}
	if got := sameRun(t, dir, nil, []string{"-cb", "max", "max-1", "one", "one2"}); !strings.Contains(got.Stdout, "Infinity\ttotal") {
		t.Errorf("2^64-1 in total: %q", got.Stdout)
	}
	// Summed in the walk: directories of them, each over 2^64-1 by its
	// own files (du before 9.2 adds directories' sizes too).
	for i, size := range []uint64{1<<63 - 1, 1<<63 - 2, 1 << 62, 1<<63 - 1, 1<<63 - 1, 1 << 62} {
		sub := filepath.Join(dir, "in", strings.Repeat("d/", i/3))
		os.MkdirAll(sub, 0o755)
		f, _ := os.Create(filepath.Join(sub, fmt.Sprint("f", i)))
		f.Close()
		if err := syscall.Truncate(f.Name(), int64(size)); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"-b", "in"}, {"-ab", "in"}, {"-Sb", "in"}, {"-sb", "in"}, {"--apparent-size", "-h", "in"}} {
		if got := sameRun(t, dir, nil, args); !strings.Contains(got.Stdout, "Infinity") {
			t.Errorf("%q: no Infinity: %q", args, got.Stdout)
		}
	}
	if got := testtree.Run(t, dir, nil, godu, "--json", "-s", "in"); !strings.Contains(got.Stdout, `"apparent_size": 18446744073709551615`) {
		t.Errorf("--json: the saturated sum is not 2^64-1: %q", got.Stdout)
	}
}

// TestGeneratedQuoting: names and arguments of random bytes and
// characters (controls, quotes, shell metacharacters, accents, CJK,
// format characters, invalid UTF-8) in messages, under locales that are
// installed, spelled in other ways, or missing (then du quotes as in C).
func TestGeneratedQuoting(t *testing.T) {
	needDu(t)
	root := t.TempDir()
	pieces := []string{"a", " ", "'", "\"", "\\", "$", "`", "!", "*", "\n", "\t", "\x01", "\x7f", "é", "中", "\u00a0", "\u200b", "\u00ad",
		"\u0301", "\U0001F600", "\xff", "\xc3", "\xe2\x80", "~", "#", "=", "%", "-", "{}", "\u2018", "\u2019", "\u2028", "\u0085", "\ue000"}
	locales := [][]string{{"LC_ALL=C"}, {"LC_ALL=C.UTF-8"}, {"LC_ALL=C.utf8"}, {"LC_ALL=en_US.UTF-8"}, {"LC_ALL=", "LANG=C.UTF-8"},
		{"LC_ALL=", "LC_CTYPE=C.UTF-8", "LANG=C"}, {"LC_ALL=", "LANG=C.UTF-8", "LC_TIME=xx_YY.UTF-8"}, {"LC_ALL=POSIX"}, {"LC_ALL=C.UTF-8@euro"}}
	r := rand.New(rand.NewSource(9 + seedOffset()))
	word := func() string {
		var b strings.Builder
		for n := 1 + r.Intn(4); n > 0; n-- {
			b.WriteString(pieces[r.Intn(len(pieces))])
		}
		return b.String()
	}
	for i := 0; i < 200; i++ {
		env := locales[r.Intn(len(locales))]
		var args []string
		switch r.Intn(4) {
		case 0:
			args = []string{"-d", word()}
		case 1:
			args = []string{"--time=x" + word()} // never a valid word: no times read
		case 2:
			args = []string{"-X", "missing" + word()}
		default:
			args = []string{"-s", "missing" + word(), "missing" + word()}
		}
		sameRun(t, root, env, args)
	}
}
