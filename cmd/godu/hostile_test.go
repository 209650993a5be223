//go:build unix

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// TestHostileNamesOnTerminal: directories named with escape sequences,
// every control byte, bidirectional overrides and bytes that are not
// UTF-8, walked with the progress line drawn every millisecond on a
// pseudo-terminal: what reaches the terminal holds no escape sequence but
// godu's own line erase, and the names it shows are escaped. Standard
// output (du's lines, a pipe here) keeps the names' bytes as du does.
func TestHostileNamesOnTerminal(t *testing.T) {
	root := t.TempDir()
	var ctl []byte
	for b := 1; b < 0x20; b++ {
		ctl = append(ctl, byte(b))
	}
	names := []string{"\x1b]0;PWNED\a\x1b[2J x", string(ctl) + "\x7f", "\u202eevil\u202c\u2066", "\xff\xfe\x9b31m\xc2\x9b2J", "\x1b]52;c;cHduZWQ=\a"}
	for i, name := range names {
		dir := filepath.Join(root, "t", name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for j := 0; j < 400+i; j++ {
			sub := filepath.Join(dir, fmt.Sprint(j%20))
			os.Mkdir(sub, 0o755)
			if err := os.WriteFile(filepath.Join(sub, fmt.Sprint(j)), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	shown := false
	for run := 0; run < 5 && !shown; run++ {
		out, term, code := onTerminal(t, root, []string{"GODU_PROGRESS_EVERY=1ms"}, "", "du", godu, []string{"-j", "1", "-a", "t"}, false)
		if code != 0 {
			t.Fatalf("status %d: %q", code, term)
		}
		for _, name := range names {
			if !strings.Contains(out, "t/"+name+"\n") {
				t.Fatalf("du's lines lost the raw name %q", name)
			}
		}
		rest := strings.ReplaceAll(term, "\r\x1b[K", "")
		if !utf8.ValidString(rest) {
			t.Fatalf("the terminal received bytes that are not UTF-8: %q", rest)
		}
		for _, r := range rest {
			if r < 0x20 && r != '\n' || r == 0x7f || r >= 0x80 && r < 0xa0 || unicode.Is(unicode.Cf, r) {
				t.Fatalf("the terminal received %U: %q", r, rest)
			}
		}
		shown = strings.Contains(rest, `\x1b]0;PWNED\x07\x1b[2J x`) || strings.Contains(rest, `\u202eevil`) ||
			strings.Contains(rest, `\x01\x02`) || strings.Contains(rest, `\xff\xfe`) || strings.Contains(rest, `\x1b]52;`)
	}
	if !shown {
		t.Skip("no progress frame showed a hostile name in five runs")
	}
}
