package du

import (
	"math/rand"
	"strconv"
	"strings"
	"testing"
)

// fnmatch is glibc's fnmatch(3) with flags 0. In a UTF-8 locale it
// matches characters when pattern and name are both valid UTF-8 as glibc
// decodes it (appendGlibcRunes), and
// bytes when they are not or when characters do not match; in the C
// locale, bytes.
func fnmatch(pattern, name string, wide bool) bool {
	if wide {
		p, okp := appendGlibcRunes(nil, pattern)
		n, okn := appendGlibcRunes(nil, name)
		if okp && okn && matchUnits(p, n, true) {
			return true
		}
	}
	return matchUnits(appendBytes(nil, pattern), appendBytes(nil, name), false)
}

// matchEverySuffix is du's rule (gnulib's exclude) read literally. A
// pattern with a wildcard ('*', '?', '[', ']', not after a '\\') is
// matched by fnmatch against the whole path, then against every part of it
// that follows a '/' not followed by another; one without is compared, its
// backslashes taken off but a last one, with the whole path, then with
// every part that follows a '/'.
func matchEverySuffix(patterns []string, path string, wide bool) bool {
	for _, p := range patterns {
		wild := false
		for i := 0; i < len(p); i++ {
			if p[i] == '\\' {
				i++
			} else if strings.ContainsRune("*?[]", rune(p[i])) {
				wild = true
			}
		}
		if !wild {
			var s []byte
			for i := 0; i < len(p); i++ {
				if p[i] == '\\' && i+1 < len(p) {
					i++
				}
				s = append(s, p[i])
			}
			for f := path; ; {
				if f == string(s) {
					return true
				}
				i := strings.IndexByte(f, '/')
				if i < 0 {
					break
				}
				f = f[i+1:]
			}
			continue
		}
		if fnmatch(p, path, wide) {
			return true
		}
		for i := 0; i < len(path); i++ {
			if path[i] == '/' && (i+1 == len(path) || path[i+1] != '/') && fnmatch(p, path[i+1:], wide) {
				return true
			}
		}
	}
	return false
}

// excludeAlphabet is what random patterns and paths are built of: wildcards,
// brackets, classes, ranges, escapes, slashes, characters of several bytes
// and bytes that are not UTF-8.
var (
	patternPieces = []string{"*", "*", "?", "a", "b", "d", "é", "中", "\\xff", "\xff", "\xc3", ".", "/", "//", "\\", "\\*", "\\a", "[", "]",
		"[!a]", "[^a]", "[a-c]", "[]a]", "[[:alpha:]]", "[[:bogus:]]", "[é-ü]", "[a-", "[/]", "-", "x",
		"[[.a.]]", "[[=a=]]", "[[.ab.]]", "[a-[.d.]]", "[[=]", "[[.a]"}
	pathPieces = []string{"a", "b", "d", "dd", "é", "中", "\xff", "\xc3", ".", "x", "*", "[", "-", "a.x", "bé", "\\", "a\\"}
)

func randomExcludes(r *rand.Rand) []string {
	ps := make([]string, 1+r.Intn(2))
	for i := range ps {
		var b strings.Builder
		for n := r.Intn(5); n >= 0; n-- {
			b.WriteString(patternPieces[r.Intn(len(patternPieces))])
		}
		ps[i] = b.String()
	}
	return ps
}

func randomPath(r *rand.Rand, depth int) string {
	var b strings.Builder
	if r.Intn(8) == 0 {
		b.WriteString("/")
	}
	for i := 0; i < depth; i++ {
		if i > 0 {
			b.WriteString([]string{"/", "/", "/", "//"}[r.Intn(4)])
		}
		for n := r.Intn(3); n >= 0; n-- {
			b.WriteString(pathPieces[r.Intn(len(pathPieces))])
		}
	}
	if r.Intn(8) == 0 {
		b.WriteString("/")
	}
	return b.String()
}

// TestExcluderAsEverySuffix: Match decides as du's rule read literally,
// for random patterns and paths, bytes and characters.
func TestExcluderAsEverySuffix(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 200000; i++ {
		ps := randomExcludes(r)
		var x Excluder
		for _, p := range ps {
			x.Add(p)
		}
		path := randomPath(r, 1+r.Intn(6))
		for _, wide := range []bool{false, true} {
			if got, want := x.match(path, wide), matchEverySuffix(ps, path, wide); got != want {
				t.Fatalf("patterns %q, path %q, characters %v: %v, every suffix says %v", ps, path, wide, got, want)
			}
		}
	}
}

// TestExcludeTriesOnDeepPaths: on a path 20,000 directories deep, a pattern
// that starts with '*', or with a fixed part then '*', or has none, is
// matched against a bounded number of the path's parts, not against
// every one (du's way, quadratic in the depth for each path and cubic
// for a chain).
func TestExcludeTriesOnDeepPaths(t *testing.T) {
	for _, p := range []string{"*.x", "*.c", "d*.x", "dir/file.?", "?i*.x", "zzz", "dir", "[a-z]", "[d]ir/*c", "x*", "\\d*"} {
		for _, wide := range []bool{false, true} {
			var x Excluder
			x.Add(p)
			short := strings.Repeat("dir/", 200) + "file.c"
			if got, want := x.match(short, wide), matchEverySuffix([]string{p}, short, wide); got != want {
				t.Errorf("%q: %v, every suffix says %v", p, got, want)
			}
			countTries = true
			matchTries.Store(0)
			x.match(strings.Repeat("dir/", 20000)+"file.c", wide)
			countTries = false
			if n := matchTries.Load(); n > 2 {
				t.Errorf("%q (characters %v): matched against %d parts of the path", p, wide, n)
			}
		}
	}
}

// BenchmarkExcludeDepth matches "*.o" and "d*.o" against paths of 1,000 to
// 8,000 directories: the time per path grows with its length, as reading
// it does.
func BenchmarkExcludeDepth(b *testing.B) {
	for _, depth := range []int{1000, 2000, 4000, 8000} {
		path := strings.Repeat("dir/", depth) + "file.c"
		for _, p := range []string{"*.o", "d*.o", "*share*"} {
			var x Excluder
			x.Add(p)
			b.Run(p+"/"+strconv.Itoa(depth), func(b *testing.B) {
				for b.Loop() {
					x.match(path, true)
				}
			})
		}
	}
}

// FuzzExcluder: Match decides as du's rule read literally, for any
// pattern and path, as bytes and as characters.
func FuzzExcluder(f *testing.F) {
	for _, s := range [][2]string{{"*.x", "a/b.x"}, {"d*f", "d/d//f"}, {"[!a]*", "\xff/b"}, {"?é*", "x/aé/c"}, {"\\", "a/"}, {"", "t/"}, {"[[:bogus:]]a*", "a/a"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, p, path string) {
		var x Excluder
		x.Add(p)
		for _, wide := range []bool{false, true} {
			if got, want := x.match(path, wide), matchEverySuffix([]string{p}, path, wide); got != want {
				t.Fatalf("pattern %q, path %q, characters %v: %v, every suffix says %v", p, path, wide, got, want)
			}
		}
	})
}
