package du

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Quoting of names and words in messages, as du's quote (locale style),
// quotef (shell-escape: quotes only when the shell needs them) and quoteaf
// (shell-escape-always) do. Control characters and bytes that do not
// print in the locale become C escapes, in $'...' for the shell styles.

// Quote quotes a file name as du's quoteaf: always quoted.
func Quote(s string) string { return quoteStyled(s, shellEscapeAlways) }

// QuoteFileName quotes a file name only where the shell would need it, or
// where it holds a ':' (du's quotef, for names before a ':' in messages).
func QuoteFileName(s string) string { return quoteStyled(s, shellEscape) }

// QuoteWord quotes an argument as du's quote(): typographic quotes in a
// UTF-8 locale, apostrophes otherwise, with C escapes.
func QuoteWord(s string) string { return quoteStyled(s, localeStyle) }

type quoteStyle int

const (
	localeStyle quoteStyle = iota
	shellEscape
	shellEscapeAlways
	cStyle
)

// quoter is one pass over a string; a shell-style pass that meets a
// single quote may be run again (pass 2), keeping the state the first
// pass ended in, as gnulib's quotearg does.
type quoter struct {
	b                strings.Builder
	shell            bool // the shell styles
	elide            bool // quotef: no outer quotes unless needed
	closeQuote       string
	pendingEnd       bool // inside $'...', to be closed before a printable
	sawQuote, compat bool // a ' met; every character fits "..." quoting
}

func quoteStyled(s string, style quoteStyle) string { return quoteIn(s, style, utf8Locale()) }

// quoteIn quotes s in a UTF-8 locale or not.
func quoteIn(s string, style quoteStyle, utf8ok bool) string {
	if style == shellEscape {
		if out, ok := quotePass(s, style, utf8ok, nil); ok {
			return out
		}
		style = shellEscapeAlways
	}
	out, _ := quotePass(s, style, utf8ok, nil)
	return out
}

// quotePass runs one pass; ok is false when quotef must quote after all.
func quotePass(s string, style quoteStyle, utf8ok bool, again *quoter) (out string, ok bool) {
	q := &quoter{compat: true}
	if again != nil {
		q.pendingEnd, q.sawQuote = again.pendingEnd, again.sawQuote
	}
	switch style {
	case localeStyle:
		q.closeQuote = "'"
		open := "'"
		if utf8ok {
			open, q.closeQuote = "\u2018", "\u2019"
		}
		q.b.WriteString(open)
	case cStyle:
		q.b.WriteByte('"')
		q.closeQuote = `"`
	case shellEscape:
		q.shell, q.elide = true, true
	case shellEscapeAlways:
		q.shell = true
		q.b.WriteByte('\'')
		q.closeQuote = "'"
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		escaping := false
		charCompat := false
		rightQuote := !q.shell && q.closeQuote != "" && strings.HasPrefix(s[i:], q.closeQuote)
		escape := func(e string) {
			if q.shell && !q.pendingEnd {
				q.b.WriteString("'$'")
				q.pendingEnd = true
			}
			q.b.WriteString(`\` + e)
			escaping = true
		}
		store := func(s string) {
			if q.pendingEnd && !escaping {
				q.b.WriteString("''")
				q.pendingEnd = false
			}
			q.b.WriteString(s)
		}
		switch {
		case c == '{' || c == '}':
			if len(s) == 1 {
				if q.elide {
					return "", false
				}
				charCompat = true
			}
			store(string(c))
		case c == '#' || c == '~':
			if i == 0 {
				if q.elide {
					return "", false
				}
				charCompat = true
			}
			store(string(c))
		case c == ' ':
			if q.elide {
				return "", false
			}
			charCompat = true
			store(" ")
		case strings.IndexByte("!\"$&()*;<=>[^`|", c) >= 0:
			if q.elide && q.shell {
				return "", false
			}
			if rightQuote { // '"' closing c-style quotes
				escape(string(c))
				break
			}
			store(string(c))
		case c == ':' && q.elide: // quotef is gnulib's colon style
			return "", false
		case c == '?':
			if q.elide {
				return "", false
			}
			store("?")
		case c == '\'':
			q.sawQuote, charCompat = true, true
			switch {
			case q.shell && q.elide:
				return "", false
			case q.shell:
				q.b.WriteString(`'\'`)
				q.pendingEnd = false
				store("'")
			case rightQuote:
				escape("'")
			default:
				store("'")
			}
		case c == '\\':
			switch {
			case q.shell && q.elide:
				return "", false
			case q.shell:
				store(`\`)
			default:
				escape(`\`)
			}
		case strings.IndexByte("\n\r\t", c) >= 0:
			if q.elide {
				return "", false
			}
			escape(string("nrt"[strings.IndexByte("\n\r\t", c)]))
		case strings.IndexByte("\a\b\f\v", c) >= 0:
			if q.elide {
				return "", false
			}
			escape(string("abfv"[strings.IndexByte("\a\b\f\v", c)]))
		case strings.IndexByte("%+,-./0123456789:]_", c) >= 0 || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
			charCompat = true
			store(string(c))
		default:
			n, printable := 1, c >= 0x20 && c < 0x7f
			if c >= 0x80 && utf8ok {
				n, printable = multibyte(s[i:])
			}
			charCompat = printable
			if n == 1 && printable {
				store(string(c))
				break
			}
			if !printable && q.elide {
				return "", false
			}
			for j := 0; j < n; j++ {
				b := s[i+j]
				switch {
				case !printable:
					escape(string([]byte{'0' + b>>6, '0' + b>>3&7, '0' + b&7}))
				case j == 0 && rightQuote:
					q.b.WriteByte('\\')
					store(s[i : i+1])
				default:
					store(s[i+j : i+j+1])
				}
			}
			i += n - 1
		}
		if !charCompat {
			q.compat = false
		}
	}
	if q.elide && q.b.Len() == 0 {
		return "", false
	}
	if q.shell && !q.elide && q.sawQuote && again == nil {
		if q.compat {
			return quotePass(s, cStyle, utf8ok, nil)
		}
		return quotePass(s, style, utf8ok, q)
	}
	q.b.WriteString(q.closeQuote)
	return q.b.String(), true
}

// multibyte is the length of the UTF-8 character at the start of s, as
// mbrtowc sees it (an incomplete one runs to the end of s, an invalid
// byte is one), and whether it prints.
func multibyte(s string) (int, bool) {
	r, n := utf8.DecodeRuneInString(s)
	if r != utf8.RuneError || n > 1 {
		return n, wprint(r)
	}
	if !utf8.FullRuneInString(s) {
		return len(s), false
	}
	return 1, false
}

// wprint is iswprint in the C library's UTF-8 locales: every assigned
// character but controls and the line and paragraph separators, private
// use included. (Characters assigned after Unicode 14, which the C
// library here does not know, print in godu.)
func wprint(r rune) bool {
	return unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Zs, unicode.Cf, unicode.Co)
}
