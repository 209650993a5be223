package du

import (
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
)

// Excluder matches paths against --exclude and -X patterns as du does:
// shell wildcards with fnmatch's default rules ('*' and '?' match '/'
// too, a leading '.' is not special, '\' quotes), tried against the whole
// path and against every part of it that follows a '/'.
//
// du runs fnmatch on each of those parts: on a path d directories deep,
// d matches of up to its whole length, and a chain of d levels costs d³.
// Match tries at most one part for every pattern but one with an
// ill-formed bracket before its first '*' (see units.match).
type Excluder struct {
	patterns []pattern
	// A pattern without wildcards du compares as a string (see
	// literal): literals holds them, lengths their lengths, once each.
	literals map[string]bool
	lengths  []int
}

// pattern is a pattern as bytes, and as characters when it is valid UTF-8
// (chars.p nil otherwise).
type pattern struct {
	bytes, chars compiled
}

// compiled is a pattern's units, the index of its first '*' and the
// units what comes before it matches (see head); and, when what follows
// its last '*' is of a fixed length (t units, else t is -1), the index of
// that last '*'.
type compiled struct {
	p     []rune
	star  int
	h     int
	fixed bool
	last  int
	t     int
}

func compile(p []rune, wide bool) compiled {
	c := compiled{p: p, t: -1}
	c.star, c.h, c.fixed = head(p, wide)
	for at := c.star; c.fixed && at >= 0; {
		star, h, fixed := head(p[at+1:], wide)
		if !fixed {
			break
		}
		if star < 0 {
			c.last, c.t = at, h
			break
		}
		at += 1 + star
	}
	return c
}

// rest reports whether the pattern from its first '*' on matches m: where
// what follows its last '*' is of fixed length, m's last t units must
// match it, and what is between the two '*' the rest of m.
func (c *compiled) rest(m []rune, wide bool) bool {
	if c.t < 0 {
		return matchUnits(c.p[c.star:], m, wide)
	}
	end := len(m) - c.t
	if end < 0 || !matchUnits(c.p[c.last+1:], m[end:], wide) {
		return false
	}
	return c.last == c.star || matchUnits(c.p[c.star:c.last+1], m[:end], wide)
}

// Add adds a pattern.
func (x *Excluder) Add(p string) {
	if s, ok := literal(p); ok {
		if x.literals == nil {
			x.literals = map[string]bool{}
		}
		if !slices.Contains(x.lengths, len(s)) {
			x.lengths = append(x.lengths, len(s))
		}
		x.literals[s] = true
		return
	}
	pt := pattern{bytes: compile(appendBytes(nil, p), false)}
	if r, ok := appendGlibcRunes(nil, p); ok {
		pt.chars = compile(r, true)
	}
	x.patterns = append(x.patterns, pt)
}

// literal reports whether p has no wildcard ('*', '?', '[', ']'; a '\'
// quotes the character after it), and then returns the string du compares
// paths with: p without the backslash before each character (a last one
// stays).
func literal(p string) (string, bool) {
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '*', '?', '[', ']':
			return "", false
		case '\\':
			i++
		}
	}
	if !strings.Contains(p, "\\") {
		return p, true
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '\\' && i+1 < len(p) {
			i++
		}
		b.WriteByte(p[i])
	}
	return b.String(), true
}

// Empty reports whether there is no pattern.
func (x *Excluder) Empty() bool { return len(x.patterns) == 0 && len(x.literals) == 0 }

// matchLiteral reports whether path, or what follows one of its '/' (a
// '/' before another one too), is one of the literal patterns: only the
// path's end of each of their lengths can be.
func (x *Excluder) matchLiteral(path string) bool {
	for _, n := range x.lengths {
		if k := len(path) - n; k == 0 || k > 0 && path[k-1] == '/' {
			if x.literals[path[k:]] {
				return true
			}
		}
	}
	return false
}

// Match reports whether path is excluded.
func (x *Excluder) Match(path string) bool { return x.match(path, utf8Locale()) }

// matchTries counts, while countTries is set, the matches of a pattern's
// part that may run the path's whole length (the part from its first '*'
// on, or a pattern matched against every part of the path). For tests:
// off, workers matching at once share no counter.
var (
	countTries bool
	matchTries atomic.Int64
)

func tried() {
	if countTries {
		matchTries.Add(1)
	}
}

// match is Match in the C locale (wide false) or a UTF-8 one. fnmatch
// matches a part of the path as characters when both are valid UTF-8,
// then as bytes: a part matches in either way, so the whole path does
// when some part matches as characters or some part as bytes.
func (x *Excluder) match(path string, wide bool) bool {
	if x.matchLiteral(path) {
		return true
	}
	if len(x.patterns) == 0 {
		return false
	}
	bufs := unitsPool.Get().(*[2]units)
	defer unitsPool.Put(bufs)
	bytes, chars := &bufs[0], &bufs[1]
	var haveBytes, haveChars bool
	for _, p := range x.patterns {
		if wide && p.chars.p != nil {
			if !haveChars {
				chars.validTail(path)
				haveChars = true
			}
			if chars.ok && chars.match(&p.chars, true) {
				return true
			}
		}
		if !haveBytes {
			bytes.n = appendBytes(bytes.n[:0], path)
			bytes.partStarts()
			haveBytes = true
		}
		if bytes.match(&p.bytes, false) {
			return true
		}
	}
	return false
}

// unitsPool holds the buffers of match: a path as bytes and characters.
var unitsPool = sync.Pool{New: func() any { return new([2]units) }}

// units is a path as characters or bytes, and where the parts of it that
// are tried begin (ascending, the first at 0 or, as characters, at the
// first part from which the path is valid UTF-8). ok is false when no
// part is (as characters).
type units struct {
	n      []rune
	starts []int
	ok     bool
}

// partStarts lists 0 and the indices that follow a '/' not followed by
// another, as du's exclude does.
func (u *units) partStarts() {
	n := u.n
	u.starts = append(u.starts[:0], 0)
	for i := range n {
		if n[i] == '/' && (i+1 == len(n) || n[i+1] != '/') {
			u.starts = append(u.starts, i+1)
		}
	}
}

// validTail sets u to path as characters from its first part that is
// valid UTF-8 to the end (a part is valid when it and those after it are:
// a '/' is never inside a character).
func (u *units) validTail(path string) {
	from, ok := 0, true
	for i := 0; i < len(path); {
		if path[i] < 0x80 {
			i++
			continue
		}
		_, n, valid := glibcNext(path, i)
		if valid {
			i += n
			continue
		}
		// Invalid: the parts that begin after the next '/' not
		// followed by another may be valid.
		ok = false
		for i++; i < len(path); i++ {
			if path[i] == '/' && (i+1 == len(path) || path[i+1] != '/') {
				from, ok = i+1, true
				i++
				break
			}
		}
	}
	u.ok = ok
	if !ok {
		return
	}
	u.n, _ = appendGlibcRunes(u.n[:0], path[from:])
	u.partStarts()
}

// match reports whether pattern p (as characters or bytes, as u) matches
// one of u's parts. A pattern is a head without '*' and the rest: where
// the head is of fixed length h (no bracket that fails to parse), a part
// that matches starts with a match of the head, h units long, and the
// rest, which begins with '*', matches anything that ends with what it
// matches; so the first part whose first h units match the head decides.
// Without a '*', only the part of exactly h units can match.
func (u *units) match(c *compiled, wide bool) bool {
	p, star, h, n := c.p, c.star, c.h, u.n
	switch {
	case !c.fixed:
		for _, k := range u.starts {
			tried()
			if matchUnits(p, n[k:], wide) {
				return true
			}
		}
		return false
	case star < 0:
		k := len(n) - h
		if k < 0 || !slices.Contains(u.starts, k) {
			return false
		}
		return matchUnits(p, n[k:], wide)
	}
	for _, k := range u.starts {
		if k+h <= len(n) && matchUnits(p[:star], n[k:k+h], wide) {
			tried()
			return c.rest(n[k+h:], wide)
		}
	}
	return false
}

// head returns the index of p's first '*' outside brackets and escapes
// (-1 if none), and how many units what comes before it matches: each
// '?', escaped or plain character and bracket matches one. fixed is false
// when a bracket there may fail to parse (bracketNoMatch), or the pattern
// ends in a lone '\'.
func head(p []rune, wide bool) (star, h int, fixed bool) {
	for i := 0; i < len(p); {
		switch p[i] {
		case '*':
			return i, h, true
		case '\\':
			if i+1 == len(p) {
				return -1, 0, false
			}
			i += 2
		case '[':
			_, rest, state := matchBracket(p[i+1:], 0, wide)
			switch state {
			case bracketNoMatch:
				return -1, 0, false
			case bracketOpen:
				i++
			default:
				i = len(p) - len(rest)
			}
		default:
			i++
		}
		h++
	}
	return -1, h, true
}

// appendGlibcRunes appends s decoded as glibc's UTF-8 does (glibcNext) to
// dst; ok is false when s is not valid.
func appendGlibcRunes(dst []rune, s string) (r []rune, ok bool) {
	r = slices.Grow(dst, len(s))
	for i := 0; i < len(s); {
		if c := s[i]; c < 0x80 {
			r = append(r, rune(c))
			i++
			continue
		}
		c, n, valid := glibcNext(s, i)
		if !valid {
			return nil, false
		}
		r = append(r, c)
		i += n
	}
	return r, true
}

// glibcNext decodes the character at s[i] as glibc's UTF-8 does: sequences
// of up to six bytes for code points up to 0x7FFFFFFF, past U+10FFFF too;
// overlong forms and surrogates are invalid (ok false).
func glibcNext(s string, i int) (r rune, size int, ok bool) {
	c := s[i]
	var n int
	var least, cp rune
	switch {
	case c < 0x80:
		return rune(c), 1, true
	case c >= 0xc2 && c <= 0xdf:
		n, least, cp = 2, 0x80, rune(c&0x1f)
	case c >= 0xe0 && c <= 0xef:
		n, least, cp = 3, 0x800, rune(c&0x0f)
	case c >= 0xf0 && c <= 0xf7:
		n, least, cp = 4, 0x10000, rune(c&0x07)
	case c >= 0xf8 && c <= 0xfb:
		n, least, cp = 5, 0x200000, rune(c&0x03)
	case c >= 0xfc && c <= 0xfd:
		n, least, cp = 6, 0x4000000, rune(c&0x01)
	default:
		return 0, 0, false
	}
	if i+n > len(s) {
		return 0, 0, false
	}
	for k := 1; k < n; k++ {
		b := s[i+k]
		if b&0xc0 != 0x80 {
			return 0, 0, false
		}
		cp = cp<<6 | rune(b&0x3f)
	}
	if cp < least || cp >= 0xd800 && cp <= 0xdfff {
		return 0, 0, false
	}
	return cp, n, true
}

// posixlyCorrect: POSIXLY_CORRECT is set, even empty (then '^' does not
// negate a bracket), read once.
var posixlyCorrect = sync.OnceValue(func() bool {
	_, set := os.LookupEnv("POSIXLY_CORRECT")
	return set
})

// appendBytes appends s's bytes, each a unit, to dst.
func appendBytes(dst []rune, s string) []rune {
	dst = slices.Grow(dst, len(s))
	for i := 0; i < len(s); i++ {
		dst = append(dst, rune(s[i]))
	}
	return dst
}

// matchUnits matches characters (wide) or bytes.
func matchUnits(p, n []rune, wide bool) bool {
	for len(p) > 0 {
		c := p[0]
		p = p[1:]
		switch c {
		case '?':
			if len(n) == 0 {
				return false
			}
			n = n[1:]
		case '\\':
			if len(p) == 0 {
				return false // a trailing backslash matches nothing
			}
			c, p = p[0], p[1:]
			if len(n) == 0 || n[0] != c {
				return false
			}
			n = n[1:]
		case '*':
			for len(p) > 0 && (p[0] == '*' || p[0] == '?') {
				if p[0] == '?' {
					if len(n) == 0 {
						return false
					}
					n = n[1:]
				}
				p = p[1:]
			}
			if len(p) == 0 {
				return true
			}
			if c := p[0]; c != '[' && c != '\\' {
				// A literal next ('*' and '?' were taken above): only
				// where it stands can the rest match, and a scan finds
				// those without a call for every unit (a path 100 KB long
				// cost 100,000 calls).
				for i := 0; i < len(n); i++ {
					if n[i] == c && matchUnits(p, n[i:], wide) {
						return true
					}
				}
				return false
			}
			for i := 0; i <= len(n); i++ {
				if matchUnits(p, n[i:], wide) {
					return true
				}
			}
			return false
		case '[':
			if len(n) == 0 {
				return false
			}
			in, rest, state := matchBracket(p, n[0], wide)
			switch state {
			case bracketNoMatch:
				return false
			case bracketOpen: // an unterminated '[' is an ordinary character
				if n[0] != '[' {
					return false
				}
				n = n[1:]
				continue
			}
			if !in {
				return false
			}
			p, n = rest, n[1:]
		default:
			if len(n) == 0 || n[0] != c {
				return false
			}
			n = n[1:]
		}
	}
	return len(n) == 0
}

const (
	bracketDone    = iota
	bracketOpen    // no closing ']': '[' is literal
	bracketNoMatch // ill-formed (an unknown class, "[a-"): no match
)

// matchBracket matches c against the bracket expression whose text
// (after '[') is p, as glibc does: '!' (or '^' unless POSIXLY_CORRECT)
// negates, a ']' first is literal, '\' quotes, [:class:], ranges by value.
func matchBracket(p []rune, c rune, wide bool) (in bool, rest []rune, state int) {
	negate := len(p) > 0 && (p[0] == '!' || p[0] == '^' && !posixlyCorrect())
	if negate {
		p = p[1:]
	}
	matched := false
	for i := 0; ; {
		if i == len(p) {
			return false, nil, bracketOpen
		}
		e := p[i]
		i++
		if e == '\\' {
			if i == len(p) {
				return false, nil, bracketNoMatch
			}
			e = p[i]
			i++
		} else if e == '[' && i < len(p) && p[i] == ':' {
			if name, end, ok := className(p, i); ok {
				f, known := class(name)
				switch {
				case !known && !matched: // once matched, glibc only skips
					return false, nil, bracketNoMatch
				case known && f(c, wide):
					matched = true
				}
				i = end
				if i < len(p) && p[i] == ']' {
					return matched != negate, p[i+1:], bracketDone
				}
				continue
			}
		} else if e == '[' && i+3 < len(p) && p[i] == '=' && p[i+2] == '=' && p[i+3] == ']' {
			// "[=x=]": x's equivalence class, x alone in C and
			// C.UTF-8. Ill-formed, '[' is an ordinary character.
			if c == p[i+1] {
				matched = true
			}
			i += 4
			if i < len(p) && p[i] == ']' {
				return matched != negate, p[i+1:], bracketDone
			}
			continue
		} else if e == '[' && i < len(p) && p[i] == '.' {
			// "[.x.]": the collating symbol x, which may begin a range.
			sym, end, ok := collating(p, i)
			if !ok {
				return false, nil, bracketNoMatch
			}
			e, i = sym, end
		}
		if i+1 < len(p) && p[i] == '-' && p[i+1] != ']' {
			hi := p[i+1]
			i += 2
			if hi == '\\' {
				if i == len(p) {
					return false, nil, bracketNoMatch
				}
				hi = p[i]
				i++
			} else if hi == '[' && i < len(p) && p[i] == '.' {
				sym, end, ok := collating(p, i)
				if !ok {
					return false, nil, bracketNoMatch
				}
				hi, i = sym, end
			}
			if e <= c && c <= hi {
				matched = true
			}
		} else {
			if e == c {
				matched = true
			}
			if i+1 == len(p) && p[i] == '-' { // "[a-": a range to nothing
				return false, nil, bracketNoMatch
			}
		}
		if i < len(p) && p[i] == ']' {
			return matched != negate, p[i+1:], bracketDone
		}
	}
}

// collating reads "[.x.]" from the '.' at p[i]: x and the index after
// it. ok is false where glibc's fnmatch fails the whole match: no ".]"
// to end it, or x not one unit (a name, or a character of several bytes
// matched as bytes).
func collating(p []rune, i int) (sym rune, end int, ok bool) {
	for j := i + 1; j < len(p); j++ {
		if p[j] == '.' && j+1 < len(p) && p[j+1] == ']' {
			if j-i-1 != 1 {
				return 0, 0, false
			}
			return p[i+1], j + 2, true
		}
	}
	return 0, 0, false
}

// className reads "[:name:]" starting at the ':' at p[i]; ok is false
// when it is not one (a character outside a..y), which is then literal.
func className(p []rune, i int) (string, int, bool) {
	for j := i + 1; j < len(p); j++ {
		if p[j] == ':' && j+1 < len(p) && p[j+1] == ']' {
			return string(p[i+1 : j]), j + 2, true
		}
		if p[j] < 'a' || p[j] >= 'z' {
			return "", 0, false
		}
	}
	return "", 0, false
}

// class is the character class name: ASCII in the C locale and for bytes,
// Unicode's in a UTF-8 locale. (A switch, not a map: nothing to build
// at start-up.)
func class(name string) (func(r rune, wide bool) bool, bool) {
	switch name {
	case "alpha":
		return func(r rune, w bool) bool { return asciiAlpha(r) || w && r > 0x7f && unicode.IsLetter(r) }, true
	case "digit":
		return func(r rune, _ bool) bool { return '0' <= r && r <= '9' }, true
	case "alnum":
		return func(r rune, w bool) bool {
			return asciiAlpha(r) || '0' <= r && r <= '9' || w && r > 0x7f && unicode.IsLetter(r)
		}, true
	case "upper":
		return func(r rune, w bool) bool { return 'A' <= r && r <= 'Z' || w && r > 0x7f && unicode.IsUpper(r) }, true
	case "lower":
		return func(r rune, w bool) bool { return 'a' <= r && r <= 'z' || w && r > 0x7f && unicode.IsLower(r) }, true
	case "space":
		return func(r rune, w bool) bool {
			return r == ' ' || '\t' <= r && r <= '\r' || w && r > 0x7f && unicode.IsSpace(r) && r != 0xa0 && r != 0x2007 && r != 0x202f && r != 0x85
		}, true
	case "blank":
		return func(r rune, w bool) bool {
			return r == ' ' || r == '\t' || w && r > 0x7f && unicode.Is(unicode.Zs, r) && r != 0xa0 && r != 0x2007 && r != 0x202f
		}, true
	case "punct":
		return func(r rune, w bool) bool {
			return r < 0x7f && r > ' ' && !asciiAlpha(r) && !('0' <= r && r <= '9') ||
				w && r > 0x7f && (unicode.IsPunct(r) || unicode.IsSymbol(r))
		}, true
	case "print":
		return func(r rune, w bool) bool { return ' ' <= r && r < 0x7f || w && r > 0x9f && unicode.IsPrint(r) }, true
	case "graph":
		return func(r rune, w bool) bool {
			return ' ' < r && r < 0x7f || w && r > 0x9f && unicode.IsGraphic(r) && !unicode.IsSpace(r)
		}, true
	case "cntrl":
		return func(r rune, w bool) bool { return r < ' ' || r == 0x7f || w && 0x80 <= r && r <= 0x9f }, true
	case "xdigit":
		return func(r rune, _ bool) bool { return '0' <= r && r <= '9' || 'a' <= r && r <= 'f' || 'A' <= r && r <= 'F' }, true
	}
	return nil, false
}

func asciiAlpha(r rune) bool { return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' }
