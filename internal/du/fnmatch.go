package du

import (
	"os"
	"unicode"
)

// Excluder matches paths against --exclude and -X patterns as du does:
// shell wildcards with fnmatch's default rules ('*' and '?' match '/'
// too, a leading '.' is not special, '\' quotes), tried against the whole
// path and against every part of it that follows a '/'.
type Excluder struct {
	patterns []string
}

// Add adds a pattern.
func (x *Excluder) Add(p string) { x.patterns = append(x.patterns, p) }

// Empty reports whether there is no pattern.
func (x *Excluder) Empty() bool { return len(x.patterns) == 0 }

// Match reports whether path is excluded.
func (x *Excluder) Match(path string) bool {
	wide := utf8Locale()
	for _, p := range x.patterns {
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

// fnmatch is glibc's fnmatch(3) with flags 0. In a UTF-8 locale it
// matches characters when pattern and name are both valid UTF-8 as glibc
// decodes it (glibcRunes), and
// bytes when they are not or when characters do not match; in the C
// locale, bytes.
func fnmatch(pattern, name string, wide bool) bool {
	if wide {
		p, okp := glibcRunes(pattern)
		n, okn := glibcRunes(name)
		if okp && okn && matchUnits(p, n, true) {
			return true
		}
	}
	return matchUnits(byteUnits(pattern), byteUnits(name), false)
}

// glibcRunes decodes s as glibc's UTF-8 does: sequences of up to six
// bytes for code points up to 0x7FFFFFFF, past U+10FFFF too; overlong
// forms and surrogates are invalid (ok false).
func glibcRunes(s string) (r []rune, ok bool) {
	r = make([]rune, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		var n int
		var least, cp rune
		switch {
		case c < 0x80:
			r = append(r, rune(c))
			i++
			continue
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
			return nil, false
		}
		if i+n > len(s) {
			return nil, false
		}
		for k := 1; k < n; k++ {
			b := s[i+k]
			if b&0xc0 != 0x80 {
				return nil, false
			}
			cp = cp<<6 | rune(b&0x3f)
		}
		if cp < least || cp >= 0xd800 && cp <= 0xdfff {
			return nil, false
		}
		r = append(r, cp)
		i += n
	}
	return r, true
}

func byteUnits(s string) []rune {
	u := make([]rune, len(s))
	for i := 0; i < len(s); i++ {
		u[i] = rune(s[i])
	}
	return u
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
	negate := len(p) > 0 && (p[0] == '!' || p[0] == '^' && os.Getenv("POSIXLY_CORRECT") == "")
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
