package du

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// TimeStyle parses a --time-style argument (or TIME_STYLE) into a strftime
// format: full-iso, long-iso, iso, or +FORMAT, each possibly prefixed by
// "posix-" (which godu, always in the POSIX time locale's place, ignores).
func TimeStyle(style string) (string, bool) {
	if style == "" {
		style = os.Getenv("TIME_STYLE")
	}
	if style == "" {
		style = "long-iso"
	}
	if strings.HasPrefix(style, "+") {
		f, _, _ := strings.Cut(style[1:], "\n")
		return f, true
	}
	style = strings.TrimPrefix(style, "posix-")
	switch style {
	case "full-iso":
		return "%Y-%m-%d %H:%M:%S.%N %z", true
	case "long-iso":
		return "%Y-%m-%d %H:%M", true
	case "iso":
		return "%Y-%m-%d", true
	}
	return "", false
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
