package du

import (
	"encoding/json"
	"strconv"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// FuzzNcduString: a name of any bytes is a valid JSON string in the
// export, and decodes back to exactly those bytes with the surrogateescape
// convention (\udcXX is byte XX; every other escape as JSON has it).
func FuzzNcduString(f *testing.F) {
	for _, s := range []string{"a", "\xff\x80", "é\xc3", "\xed\xa0\x80", "\"\\\x00\x1f\x7f", "\U0001F600", "\xed\xb3\xbf"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := appendNcduString(nil, s)
		// JSON text is UTF-8 (RFC 8259); json.Valid does not check that.
		if !json.Valid(b) || !utf8.Valid(b) {
			t.Fatalf("%q: %q is not JSON", s, b)
		}
		if got := decodeSurrogateEscaped(t, string(b)); got != s {
			t.Fatalf("%q: %s decodes to %q", s, b, got)
		}
	})
}

// decodeSurrogateEscaped decodes a JSON string literal, lone surrogates
// U+DC80..U+DCFF giving back their byte.
func decodeSurrogateEscaped(t *testing.T, lit string) string {
	var out []byte
	s := lit[1 : len(lit)-1]
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			out = append(out, s[i])
			continue
		}
		i++
		switch s[i] {
		case 'u':
			v, err := strconv.ParseUint(s[i+1:i+5], 16, 16)
			if err != nil {
				t.Fatalf("bad escape in %s", lit)
			}
			i += 4
			r := rune(v)
			switch {
			case r >= 0xdc80 && r <= 0xdcff:
				out = append(out, byte(r-0xdc00))
			case utf16.IsSurrogate(r):
				t.Fatalf("surrogate %U other than an escaped byte in %s", r, lit)
			default:
				out = utf8.AppendRune(out, r)
			}
		case 'n':
			out = append(out, '\n')
		case 't':
			out = append(out, '\t')
		default:
			out = append(out, s[i])
		}
	}
	return string(out)
}
