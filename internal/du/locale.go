package du

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// localeDir holds the C library's compiled locales.
const localeDir = "/usr/lib/locale"

var localeCategories = []string{"LC_CTYPE", "LC_NUMERIC", "LC_TIME", "LC_COLLATE", "LC_MONETARY", "LC_MESSAGES",
	"LC_PAPER", "LC_NAME", "LC_ADDRESS", "LC_TELEPHONE", "LC_MEASUREMENT", "LC_IDENTIFICATION"}

// utf8Locale reports whether du's character locale is UTF-8, resolved as
// setlocale(LC_ALL, "") resolves it: each category from LC_ALL, its own
// variable or LANG; if any names a locale that is not installed, the
// whole call fails and du stays in the C locale. It decides which
// characters of a name print in messages, which quotes du uses, and how
// --exclude patterns match.
var utf8Locale = sync.OnceValue(func() bool {
	ctype := ""
	for _, cat := range localeCategories {
		name := firstSet("LC_ALL", cat, "LANG")
		if name != "" && name != "C" && name != "POSIX" && findLocale(name) == "" {
			return false
		}
		if cat == "LC_CTYPE" {
			ctype = name
		}
	}
	if ctype == "" || ctype == "C" || ctype == "POSIX" {
		return false
	}
	found := findLocale(ctype)
	_, codeset, _ := strings.Cut(strings.SplitN(found, "@", 2)[0], ".")
	return normalizeCodeset(codeset) == "utf8"
})

func firstSet(vars ...string) string {
	for _, v := range vars {
		if s := os.Getenv(v); s != "" {
			return s
		}
	}
	return ""
}

// findLocale returns the installed locale a name resolves to, trying it
// as the C library does: with its codeset as given and normalized
// ("UTF-8" -> "utf8"), then without modifier, codeset and territory;
// "" when none is installed.
func findLocale(name string) string {
	if strings.Contains(name, "/") {
		return ""
	}
	rest, modifier, hasMod := strings.Cut(name, "@")
	rest, codeset, hasCodeset := strings.Cut(rest, ".")
	language, territory, hasTerritory := strings.Cut(rest, "_")
	var archive []byte
	for _, mod := range options(hasMod, "@"+modifier) {
		for _, cs := range codesets(hasCodeset, codeset) {
			for _, ter := range options(hasTerritory, "_"+territory) {
				cand := language + ter + cs + mod
				if st, err := os.Stat(filepath.Join(localeDir, cand)); err == nil && st.IsDir() {
					return cand
				}
				if archive == nil {
					archive, _ = os.ReadFile(filepath.Join(localeDir, "locale-archive"))
					if archive == nil {
						archive = []byte{}
					}
				}
				if bytes.Contains(archive, []byte("\x00"+cand+"\x00")) {
					return cand
				}
			}
		}
	}
	return ""
}

func options(has bool, part string) []string {
	if has {
		return []string{part, ""}
	}
	return []string{""}
}

func codesets(has bool, codeset string) []string {
	if !has {
		return []string{""}
	}
	if n := normalizeCodeset(codeset); n != codeset {
		return []string{"." + codeset, "." + n, ""}
	}
	return []string{"." + codeset, ""}
}

// normalizeCodeset is the C library's: letters lower-cased, digits kept,
// the rest dropped; "iso" before a codeset of digits only.
func normalizeCodeset(s string) string {
	var b strings.Builder
	digitsOnly := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'A' <= c && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
			digitsOnly = false
		case 'a' <= c && c <= 'z':
			b.WriteByte(c)
			digitsOnly = false
		case '0' <= c && c <= '9':
			b.WriteByte(c)
		}
	}
	if digitsOnly && b.Len() > 0 {
		return "iso" + b.String()
	}
	return b.String()
}
