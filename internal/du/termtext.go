package du

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// TerminalSafe returns name as godu's own status text shows it on a
// terminal: a name comes from the tree, and the tree's owner may not be the
// person at the terminal. Control characters (C0, DEL, C1), bytes that are
// not UTF-8, and format characters (bidirectional overrides and isolates,
// zero-width joiners) are written as C escapes (\x1b, \u202e) so that no
// byte of the name can start an escape sequence or reorder the line; a
// backslash is doubled so that the escapes stay unambiguous.
func TerminalSafe(name string) string {
	ok := true
	for _, r := range name {
		if r == utf8.RuneError || r == '\\' || !unicode.IsPrint(r) && r != ' ' {
			ok = false
			break
		}
	}
	if ok {
		return name
	}
	var b strings.Builder
	for i := 0; i < len(name); {
		r, n := utf8.DecodeRuneInString(name[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, name[i])
		case r == '\\':
			b.WriteString(`\\`)
		case r < 0x80 && (r < 0x20 || r == 0x7f):
			fmt.Fprintf(&b, `\x%02x`, r)
		case r == ' ' || unicode.IsPrint(r):
			b.WriteRune(r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
		i += n
	}
	return b.String()
}

// FitWidth cuts s (already terminal-safe) to at most cols terminal
// columns: a wide (East Asian) character takes two, a combining mark none.
func FitWidth(s string, cols int) string {
	w := 0
	for i, r := range s {
		rw := runeWidth(r)
		if w+rw > cols {
			return s[:i]
		}
		w += rw
	}
	return s
}

func runeWidth(r rune) int {
	switch {
	case unicode.In(r, unicode.Mn, unicode.Me):
		return 0
	case r >= 0x1100 && r <= 0x115f, r >= 0x2e80 && r <= 0x303e, r >= 0x3041 && r <= 0x33ff,
		r >= 0x3400 && r <= 0x4dbf, r >= 0x4e00 && r <= 0x9fff, r >= 0xa000 && r <= 0xa4cf,
		r >= 0xac00 && r <= 0xd7a3, r >= 0xf900 && r <= 0xfaff, r >= 0xfe30 && r <= 0xfe4f,
		r >= 0xff00 && r <= 0xff60, r >= 0xffe0 && r <= 0xffe6, r >= 0x1f300 && r <= 0x1f64f,
		r >= 0x1f900 && r <= 0x1f9ff, r >= 0x20000 && r <= 0x3fffd:
		return 2
	}
	return 1
}
