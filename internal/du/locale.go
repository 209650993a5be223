package du

import (
	"bytes"
	"encoding/binary"
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
	for _, mod := range options(hasMod, "@"+modifier) {
		for _, cs := range codesets(hasCodeset, codeset) {
			for _, ter := range options(hasTerritory, "_"+territory) {
				cand := language + ter + cs + mod
				if st, err := os.Stat(filepath.Join(localeDir, cand)); err == nil && st.IsDir() {
					return cand
				}
				if archiveNames()[cand] {
					return cand
				}
			}
		}
	}
	return ""
}

// archiveNames are the locales in the C library's locale archive: the
// names its name table lists (struct locarhead and namehashent in glibc's
// locarchive.h), in the byte order it was written in.
var archiveNames = sync.OnceValue(func() map[string]bool {
	names := map[string]bool{}
	data, err := os.ReadFile(filepath.Join(localeDir, "locale-archive"))
	if err != nil || len(data) < 56 {
		return names
	}
	var order binary.ByteOrder = binary.LittleEndian
	if order.Uint32(data) != 0xde020109 {
		order = binary.BigEndian
		if order.Uint32(data) != 0xde020109 {
			return names
		}
	}
	at := func(off int) int {
		if off+4 > len(data) {
			return -1
		}
		return int(order.Uint32(data[off:]))
	}
	table, size := at(8), at(16)
	for i := 0; i < size && table >= 0 && table+12*(i+1) <= len(data); i++ {
		name := at(table + 12*i + 4)
		if name <= 0 || name >= len(data) || at(table+12*i+8) == 0 {
			continue // an empty slot
		}
		if end := bytes.IndexByte(data[name:], 0); end > 0 {
			names[string(data[name:name+end])] = true
		}
	}
	return names
})

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
