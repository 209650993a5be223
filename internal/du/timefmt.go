package du

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

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

var (
	weekdays = []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
	months   = []string{"January", "February", "March", "April", "May", "June", "July",
		"August", "September", "October", "November", "December"}
)

// Strftime formats t as strftime(3) in the C locale, with GNU's %N.
func Strftime(format string, t time.Time) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' || i+1 == len(format) {
			b.WriteByte(c)
			continue
		}
		i++
		switch format[i] {
		case 'Y':
			b.WriteString(strconv.Itoa(t.Year()))
		case 'C':
			fmt.Fprintf(&b, "%02d", t.Year()/100)
		case 'y':
			fmt.Fprintf(&b, "%02d", t.Year()%100)
		case 'm':
			fmt.Fprintf(&b, "%02d", int(t.Month()))
		case 'd':
			fmt.Fprintf(&b, "%02d", t.Day())
		case 'e':
			fmt.Fprintf(&b, "%2d", t.Day())
		case 'H':
			fmt.Fprintf(&b, "%02d", t.Hour())
		case 'I':
			fmt.Fprintf(&b, "%02d", (t.Hour()+11)%12+1)
		case 'M':
			fmt.Fprintf(&b, "%02d", t.Minute())
		case 'S':
			fmt.Fprintf(&b, "%02d", t.Second())
		case 'N':
			fmt.Fprintf(&b, "%09d", t.Nanosecond())
		case 'j':
			fmt.Fprintf(&b, "%03d", t.YearDay())
		case 'p':
			if t.Hour() < 12 {
				b.WriteString("AM")
			} else {
				b.WriteString("PM")
			}
		case 'a':
			b.WriteString(weekdays[t.Weekday()][:3])
		case 'A':
			b.WriteString(weekdays[t.Weekday()])
		case 'b', 'h':
			b.WriteString(months[t.Month()-1][:3])
		case 'B':
			b.WriteString(months[t.Month()-1])
		case 'u':
			b.WriteString(strconv.Itoa((int(t.Weekday())+6)%7 + 1))
		case 'w':
			b.WriteString(strconv.Itoa(int(t.Weekday())))
		case 's':
			b.WriteString(strconv.FormatInt(t.Unix(), 10))
		case 'z':
			_, off := t.Zone()
			sign := byte('+')
			if off < 0 {
				sign, off = '-', -off
			}
			fmt.Fprintf(&b, "%c%02d%02d", sign, off/3600, off/60%60)
		case 'Z':
			name, _ := t.Zone()
			b.WriteString(name)
		case 'F':
			b.WriteString(Strftime("%Y-%m-%d", t))
		case 'T':
			b.WriteString(Strftime("%H:%M:%S", t))
		case 'R':
			b.WriteString(Strftime("%H:%M", t))
		case 'D':
			b.WriteString(Strftime("%m/%d/%y", t))
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case '%':
			b.WriteByte('%')
		default:
			b.WriteByte('%')
			b.WriteByte(format[i])
		}
	}
	return b.String()
}
