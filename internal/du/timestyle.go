package du

// --time and --time-style: which time is shown, and how (a strftime
// format: Strftime, strftime.go).

import (
	"errors"
	"os"
	"strings"

	"github.com/godu-sh/godu/internal/bulk"
)

// TimeWord is du's --time=WORD: a word or an unambiguous abbreviation of
// atime, access, use (access time), ctime, status (status change time).
func TimeWord(word string) (bulk.Mode, error) {
	words := []string{"atime", "access", "use", "ctime", "status"}
	modes := []bulk.Mode{bulk.ATime, bulk.ATime, bulk.ATime, bulk.CTime, bulk.CTime}
	i := argmatch(word, words, func(i int) int { return int(modes[i]) })
	if i < 0 {
		return 0, argmatchError(word, "--time", i, words, func(i int) int { return int(modes[i]) })
	}
	return modes[i], nil
}

// TimeStyleEnv is the style TIME_STYLE gives when --time-style does not:
// long-iso when unset or "locale", a +FORMAT up to its first newline,
// any other word without its "posix-" prefixes.
func TimeStyleEnv() string {
	style, ok := os.LookupEnv("TIME_STYLE")
	switch {
	case !ok || style == "locale":
		return "long-iso"
	case strings.HasPrefix(style, "+"):
		style, _, _ = strings.Cut(style, "\n")
		return style
	}
	for strings.HasPrefix(style, "posix-") {
		style = style[len("posix-"):]
	}
	return style
}

// TimeStyle turns a style into a strftime format: +FORMAT, or full-iso,
// long-iso, iso or an unambiguous abbreviation of them.
func TimeStyle(style string) (string, error) {
	if strings.HasPrefix(style, "+") {
		return style[1:], nil
	}
	words := []string{"full-iso", "long-iso", "iso"}
	formats := []string{"%Y-%m-%d %H:%M:%S.%N %z", "%Y-%m-%d %H:%M", "%Y-%m-%d"}
	id := func(i int) int { return i }
	i := argmatch(style, words, id)
	if i < 0 {
		return "", argmatchError(style, "time style", i, words, id)
	}
	return formats[i], nil
}

// argmatch is gnulib's: the index of arg among words, exactly or as the
// abbreviation of words that all mean the same (val); -1 for none, -2 for
// an ambiguous abbreviation.
func argmatch(arg string, words []string, val func(int) int) int {
	found, ambiguous := -1, false
	for i, w := range words {
		if !strings.HasPrefix(w, arg) {
			continue
		}
		if w == arg {
			return i
		}
		if found == -1 {
			found = i
		} else if val(found) != val(i) {
			ambiguous = true
		}
	}
	if ambiguous {
		return -2
	}
	return found
}

// argmatchError is du's message for a bad word: what was wrong, then the
// valid words, synonyms on one line.
func argmatchError(arg, context string, problem int, words []string, val func(int) int) error {
	var b strings.Builder
	if problem == -1 {
		b.WriteString("invalid argument ")
	} else {
		b.WriteString("ambiguous argument ")
	}
	b.WriteString(QuoteWord(arg) + " for " + QuoteWord(context) + "\nValid arguments are:")
	for i, w := range words {
		if i == 0 || val(i) != val(i-1) {
			b.WriteString("\n  - " + QuoteWord(w))
		} else {
			b.WriteString(", " + QuoteWord(w))
		}
	}
	return errors.New(b.String())
}
