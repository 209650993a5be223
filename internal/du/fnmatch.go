package du

import (
	"io"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"
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
	for _, p := range x.patterns {
		if fnmatch(p, path) {
			return true
		}
		for i := 0; i < len(path); i++ {
			if path[i] == '/' && i+1 < len(path) && path[i+1] != '/' && fnmatch(p, path[i+1:]) {
				return true
			}
		}
	}
	return false
}

// fnmatch is fnmatch(3) with flags 0.
func fnmatch(pattern, name string) bool {
	for len(pattern) > 0 {
		switch pattern[0] {
		case '*':
			for len(pattern) > 0 && pattern[0] == '*' {
				pattern = pattern[1:]
			}
			if pattern == "" {
				return true
			}
			for i := 0; i <= len(name); i++ {
				if fnmatch(pattern, name[i:]) {
					return true
				}
			}
			return false
		case '?':
			if name == "" {
				return false
			}
			_, n := utf8.DecodeRuneInString(name)
			pattern, name = pattern[1:], name[n:]
		case '[':
			if name == "" {
				return false
			}
			r, n := utf8.DecodeRuneInString(name)
			ok, rest, valid := matchBracket(pattern, r)
			if !valid { // an unclosed '[' is an ordinary character
				if name[0] != '[' {
					return false
				}
				pattern, name = pattern[1:], name[1:]
				continue
			}
			if !ok {
				return false
			}
			pattern, name = rest, name[n:]
		case '\\':
			if len(pattern) > 1 {
				pattern = pattern[1:]
			}
			fallthrough
		default:
			if name == "" || name[0] != pattern[0] {
				return false
			}
			pattern, name = pattern[1:], name[1:]
		}
	}
	return name == ""
}

var classes = map[string]func(rune) bool{
	"alnum": func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) },
	"alpha": unicode.IsLetter, "digit": unicode.IsDigit, "lower": unicode.IsLower,
	"upper": unicode.IsUpper, "space": unicode.IsSpace, "punct": unicode.IsPunct,
	"print": unicode.IsPrint, "graph": func(r rune) bool { return unicode.IsGraphic(r) && !unicode.IsSpace(r) },
	"cntrl": unicode.IsControl, "blank": func(r rune) bool { return r == ' ' || r == '\t' },
	"xdigit": func(r rune) bool { return strings.ContainsRune("0123456789abcdefABCDEF", r) },
}

// matchBracket matches r against the bracket expression at the start of
// p; it returns whether r matched, the pattern after the expression, and
// whether the expression was closed.
func matchBracket(p string, r rune) (matched bool, rest string, valid bool) {
	i := 1
	negate := false
	if i < len(p) && (p[i] == '!' || p[i] == '^') {
		negate = true
		i++
	}
	first := true
	for i < len(p) {
		if p[i] == ']' && !first {
			return matched != negate, p[i+1:], true
		}
		first = false
		if strings.HasPrefix(p[i:], "[:") {
			if end := strings.Index(p[i+2:], ":]"); end >= 0 {
				if f, ok := classes[p[i+2:i+2+end]]; ok && f(r) {
					matched = true
				}
				i += end + 4
				continue
			}
		}
		if p[i] == '\\' && i+1 < len(p) {
			i++
		}
		lo, n := utf8.DecodeRuneInString(p[i:])
		i += n
		hi := lo
		if i+1 < len(p) && p[i] == '-' && p[i+1] != ']' {
			i++
			if p[i] == '\\' && i+1 < len(p) {
				i++
			}
			hi, n = utf8.DecodeRuneInString(p[i:])
			i += n
		}
		if lo <= r && r <= hi {
			matched = true
		}
	}
	return false, p, false
}

// AddFile adds the patterns of file (standard input for "-"), one a line,
// as du reads -X: trailing white space is dropped from each line, and
// lines left empty are skipped.
func (x *Excluder) AddFile(file string, stdin io.Reader) error {
	var data []byte
	var err error
	if file == "-" {
		data, err = io.ReadAll(stdin)
	} else {
		data, err = os.ReadFile(file)
	}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimRightFunc(line, func(r rune) bool { return r < 0x80 && isCSpace(byte(r)) })
		if line != "" {
			x.Add(line)
		}
	}
	return err
}
