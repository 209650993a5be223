package du

import (
	"math/rand"
	"os/exec"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// terminalClean reports what in s a terminal could act on: a control
// character (C0, DEL, C1), a byte that is not UTF-8, or a format character
// (bidirectional controls, zero-width characters).
func terminalClean(s string) (bad rune, ok bool) {
	if !utf8.ValidString(s) {
		return utf8.RuneError, false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || unicode.Is(unicode.Cf, r) || !unicode.IsPrint(r) && r != ' ' {
			return r, false
		}
	}
	return 0, true
}

// TestTerminalSafeProperty: names of every byte value, of random bytes and
// of random runes (controls and format characters favoured) come out with
// nothing a terminal acts on, and distinct names stay distinct.
func TestTerminalSafeProperty(t *testing.T) {
	var names []string
	for b := 0; b < 256; b++ {
		names = append(names, string([]byte{byte(b)}), "a"+string([]byte{byte(b)})+"z")
	}
	names = append(names, "\x1b]0;PWNED\a\x1b[2J x", "\u202eevil\u202c", "\u2066x\u2069", "a\u200db", "\u0085\u009b31m")
	rng := rand.New(rand.NewSource(16))
	special := []rune{0, 7, 8, 9, 10, 13, 0x1b, 0x7f, 0x80, 0x9b, 0x9d, 0xad, 0x200b, 0x200e, 0x202a, 0x202e, 0x2066, 0x2069, 0xfeff, 0xfff9, 0xe000, 0x10ffff, '\\', 'x', 0x4e2d, 0x301}
	for i := 0; i < 5000; i++ {
		var b strings.Builder
		for n := rng.Intn(12); n >= 0; n-- {
			switch rng.Intn(3) {
			case 0:
				b.WriteByte(byte(rng.Intn(256)))
			case 1:
				b.WriteRune(special[rng.Intn(len(special))])
			default:
				b.WriteRune(rune(rng.Intn(0x110000)))
			}
		}
		names = append(names, b.String())
	}
	seen := map[string]string{}
	for _, name := range names {
		got := TerminalSafe(name)
		if r, ok := terminalClean(got); !ok {
			t.Fatalf("TerminalSafe(%q) = %q holds %U", name, got, r)
		}
		if prev, dup := seen[got]; dup && prev != name {
			t.Fatalf("%q and %q both show as %q", prev, name, got)
		}
		seen[got] = name
		for cols := 0; cols < 12; cols++ {
			cut := FitWidth(got, cols)
			if !strings.HasPrefix(got, cut) || !utf8.ValidString(cut) {
				t.Fatalf("FitWidth(%q, %d) = %q", got, cols, cut)
			}
			w := 0
			for _, r := range cut {
				w += runeWidth(r)
			}
			if w > cols {
				t.Fatalf("FitWidth(%q, %d) = %q, %d columns", got, cols, cut, w)
			}
		}
	}
	if got := TerminalSafe("plain name/é 中"); got != "plain name/é 中" {
		t.Errorf("a printable name changed: %q", got)
	}
	if got := FitWidth("中中中", 5); got != "中中" {
		t.Errorf("FitWidth counts wide characters as one column: %q", got)
	}
}

// TestRuneWidthUnicode: the columns FitWidth counts are East Asian
// Width's, W and F two, combining marks none, for every code point, as
// Python's unicodedata gives them (emoji such as U+2B50 and U+1F680
// counted one made the progress line wrap on a terminal and leave rows
// behind).
func TestRuneWidthUnicode(t *testing.T) {
	script := `
import unicodedata, sys
dflt = [(0x3400,0x4dbf),(0x4e00,0x9fff),(0xf900,0xfaff),(0x20000,0x2fffd),(0x30000,0x3fffd)]
out = bytearray()
for cp in range(0x110000):
    c = chr(cp); cat = unicodedata.category(c)
    if cat in ('Mn', 'Me'): w = 0
    elif cat == 'Cn': w = 2 if any(a <= cp <= b for a, b in dflt) else 72
    else: w = 2 if unicodedata.east_asian_width(c) in ('W', 'F') else 1
    out.append(48 + w)
sys.stdout.write(unicodedata.unidata_version + "\n" + out.decode())
`
	out, err := exec.Command("python3", "-c", script).Output()
	if err != nil {
		t.Skip("python3:", err)
	}
	version, widths, _ := strings.Cut(string(out), "\n")
	if version != "14.0.0" {
		t.Skipf("Python's Unicode is %s, the table's 14.0.0", version)
	}
	bad := 0
	for cp, w := range []byte(widths) {
		if cp >= 0xd800 && cp <= 0xdfff || w == 'x' {
			continue // not characters, or not assigned in Unicode 14 (Go's tables are 15's)
		}
		if got := runeWidth(rune(cp)); got != int(w-'0') {
			if bad++; bad <= 10 {
				t.Errorf("U+%04X: width %d, unicodedata %c", cp, got, w)
			}
		}
	}
	if bad > 10 {
		t.Errorf("%d code points in all", bad)
	}
}
