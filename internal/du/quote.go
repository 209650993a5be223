package du

import (
	"os"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// utf8Locale reports whether the C library's character locale, as du would
// resolve it from the environment, is UTF-8. It decides which bytes of a
// file name are printable in messages and which quotes surround words.
func utf8Locale() bool {
	for _, v := range []string{"LC_ALL", "LC_CTYPE", "LANG"} {
		if s := os.Getenv(v); s != "" {
			s = strings.ToLower(s)
			return strings.Contains(s, "utf-8") || strings.Contains(s, "utf8")
		}
	}
	return false
}

// Quote quotes a file name for a message as du does (gnulib's
// shell-escape-always style): always quoted, usable as shell input, with
// control characters and bytes that are not printable in the locale
// written as $'\ooo' escapes.
func Quote(s string) string { return quoteName(s, utf8Locale()) }

func quoteName(s string, utf8ok bool) string {
	printable := func(i int) (int, bool) { // width of the character at i, and whether it prints
		c := s[i]
		if c < 0x80 {
			return 1, c >= 0x20 && c < 0x7f
		}
		if !utf8ok {
			return 1, false
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 {
			return 1, false
		}
		return n, unicode.IsPrint(r)
	}
	escapes := false
	for i := 0; i < len(s); {
		n, ok := printable(i)
		if !ok {
			escapes = true
			break
		}
		i += n
	}
	if !escapes {
		if !strings.Contains(s, "'") {
			return "'" + s + "'"
		}
		if !strings.ContainsAny(s, "$`\\\"!") {
			return `"` + s + `"`
		}
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	var b strings.Builder
	b.WriteByte('\'')
	inEsc := false
	for i := 0; i < len(s); {
		n, ok := printable(i)
		if ok {
			if inEsc {
				b.WriteString("''")
				inEsc = false
			}
			if s[i] == '\'' {
				b.WriteString(`'\''`)
			} else {
				b.WriteString(s[i : i+n])
			}
			i += n
			continue
		}
		if !inEsc {
			b.WriteString("'$'")
			inEsc = true
		}
		for _, c := range []byte(s[i : i+n]) {
			b.WriteString(cEscape(c))
		}
		i += n
	}
	b.WriteByte('\'')
	return b.String()
}

func cEscape(c byte) string {
	switch c {
	case '\a':
		return `\a`
	case '\b':
		return `\b`
	case '\f':
		return `\f`
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	case '\v':
		return `\v`
	}
	o := strconv.FormatInt(int64(c), 8)
	return `\` + strings.Repeat("0", 3-len(o)) + o
}

// QuoteWord quotes an argument in a message the way du's quote() does
// (gnulib's locale style): typographic quotes in a UTF-8 locale, ASCII
// ones otherwise, with C escapes for what does not print and for the
// backslash and the closing quote.
func QuoteWord(s string) string {
	utf8ok := utf8Locale()
	left, right := "'", "'"
	if utf8ok {
		left, right = "\u2018", "\u2019"
	}
	var b strings.Builder
	b.WriteString(left)
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\':
			b.WriteString(`\\`)
		case c == '\'' && !utf8ok:
			b.WriteString(`\'`)
		case c >= 0x20 && c < 0x7f:
			b.WriteByte(c)
		case c >= 0x80 && utf8ok:
			r, n := utf8.DecodeRuneInString(s[i:])
			if r != utf8.RuneError && unicode.IsPrint(r) {
				b.WriteString(s[i : i+n])
				i += n
				continue
			}
			b.WriteString(cEscape(c))
		default:
			b.WriteString(cEscape(c))
		}
		i++
	}
	b.WriteString(right)
	return b.String()
}
