package du

import (
	"strings"
	"time"
)

var (
	weekdays = []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
	months   = []string{"January", "February", "March", "April", "May", "June", "July",
		"August", "September", "October", "November", "December"}
)

// Strftime formats t (in its own zone) as GNU's strftime does in the C
// locale: flags _ - 0 + ^ #, a field width, the E and O modifiers where
// they are allowed, and GNU's conversions (%N, %P, %q, %k, %l, %s, %:z,
// %::z, %:::z ...). A directive it does not know is printed as written.
func Strftime(format string, t time.Time) string {
	return moment{t, t.Unix(), 0}.format(format)
}

// moment is a time as the C library breaks it down: the fields of Time,
// but for leap seconds (a zone that counts them, Zone), where unix is
// the time itself (%s) and leap is added to the seconds (23:59:60).
type moment struct {
	time.Time
	unix int64
	leap int
}

func (t moment) format(format string) string {
	var b tbuf
	strftime(&b, format, t, false, 0, -1)
	return b.String()
}

// directive is one conversion's flags.
type directive struct {
	pad              byte // '_', '-', '0', '+' or 0
	upper, swapCase  bool
	width            int // -1 when none
	modifier, format byte
}

// strftime writes format; upcase, yrSpec (the pad years take by
// default) and width0 (the width of the first directive) are what a
// subformat inherits.
func strftime(b *tbuf, format string, t moment, upcase bool, yrSpec byte, width0 int) {
	for i := 0; i < len(format); i, width0 = i+1, -1 {
		if format[i] != '%' {
			b.WriteByte(format[i])
			continue
		}
		start := i
		d := directive{width: width0, upper: upcase}
	flags:
		for i++; i < len(format); i++ {
			switch c := format[i]; c {
			case '_', '-', '+', '0':
				d.pad = c
			case '^':
				d.upper = true
			case '#':
				d.swapCase = true
			default:
				break flags
			}
		}
		if i < len(format) && isASCIIDigit(format[i]) {
			d.width = 0
			for ; i < len(format) && isASCIIDigit(format[i]); i++ {
				d.width = min(d.width*10+int(format[i]-'0'), 1<<31-1)
			}
		}
		if i < len(format) && (format[i] == 'E' || format[i] == 'O') {
			d.modifier = format[i]
			i++
		}
		if i == len(format) { // % at the end: printed as written
			writeBad(b, d, format[start:])
			return
		}
		d.format = format[i]
		switch {
		case d.format == '%' && i-1 != start: // "%-5%": the text before the second %
			writeBad(b, d, format[start:i])
			i--
		case d.format == ':':
			n := 1
			for i+n < len(format) && format[i+n] == ':' {
				n++
			}
			switch {
			case i+n == len(format) || format[i+n] != 'z':
				writeBad(b, d, format[start:i+1])
			case n > 3:
				writeBad(b, d, format[start:i+n+1])
				i += n
			case d.modifier == 'O' && !zoneNegative(t.Time): // the C library's, which knows no %:z
				i += n
				writeBad(b, d, "%O:")
			default:
				i += n
				writeZone(b, d, t.Time, n)
			}
		case d.modifier == 'O' && strings.IndexByte("CdeHIkljmMSuUVgGWwyq", d.format) >= 0,
			d.modifier == 'O' && d.format == 'z' && !zoneNegative(t.Time),
			d.modifier == 'E' && strings.IndexByte("CyY", d.format) >= 0:
			// Left to the C library, which prints them as if unmodified
			// (the C locale has no era or alternative digits), then
			// padded as text; it does not know %q.
			s := "%Oq"
			if d.format != 'q' {
				s = t.format("%" + string(d.format))
			}
			writeBad(b, d, s)
		default:
			if !convert(b, d, t, yrSpec) {
				if d.swapCase && (d.format == 'b' || d.format == 'h') {
					d.upper = true // # takes effect before %Eb is found bad
				}
				writeBad(b, d, format[start:i+1])
			}
		}
	}
}

func isASCIIDigit(c byte) bool { return '0' <= c && c <= '9' }

// convert writes one directive; false means it is not a conversion (or
// not with this modifier) and is to be printed as written.
func convert(b *tbuf, d directive, t moment, yrSpec byte) bool {
	year := int64(t.Year())
	yday := t.YearDay() - 1
	wday := int(t.Weekday())
	hour12 := t.Hour() % 12
	if hour12 == 0 {
		hour12 = 12
	}
	m := d.modifier
	// text writes a word; '#' makes it upper case, or lower case for
	// the words that are upper case already (swapUpper false).
	text := func(s string, swapUpper bool) bool {
		switch {
		case d.swapCase && !swapUpper:
			s = asciiCase(s, 'A', 'Z')
		case d.swapCase || d.upper:
			s = asciiCase(s, 'a', 'z')
		}
		padText(b, d, s)
		return true
	}
	// sub formats f in place of the directive: gnulib's own subformats
	// pass the pad on to their years (yr), the C library's do not.
	sub := func(f string, width int, yr byte) bool {
		var sb tbuf
		strftime(&sb, f, t, d.upper, yr, width)
		padFormatted(b, directive{pad: d.pad, width: d.width}, &sb)
		return true
	}
	switch d.format {
	case '%':
		if m != 0 {
			return false
		}
		padText(b, d, "%")
	case 'a':
		return m == 0 && text(weekdays[wday][:3], true)
	case 'A':
		return m == 0 && text(weekdays[wday], true)
	case 'b', 'h':
		return m != 'E' && text(months[t.Month()-1][:3], true)
	case 'B':
		return m != 'E' && text(months[t.Month()-1], true)
	case 'c':
		return m != 'O' && sub("%a %b %e %H:%M:%S %Y", -1, 0)
	case 'x':
		return m != 'O' && sub("%m/%d/%y", -1, 0)
	case 'X':
		return m != 'O' && sub("%H:%M:%S", -1, 0)
	case 'D':
		return m == 0 && sub("%m/%d/%y", -1, d.pad)
	case 'F':
		if m != 0 {
			return false
		}
		if d.pad == 0 && d.width < 0 {
			d.pad = '+'
			return sub("%Y-%m-%d", 4, d.pad)
		}
		return sub("%Y-%m-%d", max(d.width-6, 0), d.pad)
	case 'C':
		return m != 'E' && writeYearish(b, d, year < 0, uabs(yearCentury(year)), 2, yrSpec)
	case 'd':
		return m != 'E' && writeNumber(b, d, false, uint64(t.Day()), 2, false)
	case 'e':
		return m != 'E' && writeSpaced(b, d, uint64(t.Day()), 2)
	case 'H':
		return m != 'E' && writeNumber(b, d, false, uint64(t.Hour()), 2, false)
	case 'I':
		return m != 'E' && writeNumber(b, d, false, uint64(hour12), 2, false)
	case 'k':
		return m != 'E' && writeSpaced(b, d, uint64(t.Hour()), 2)
	case 'l':
		return m != 'E' && writeSpaced(b, d, uint64(hour12), 2)
	case 'j':
		return m != 'E' && writeNumber(b, d, false, uint64(yday+1), 3, false)
	case 'M':
		return m != 'E' && writeNumber(b, d, false, uint64(t.Minute()), 2, false)
	case 'm':
		return m != 'E' && writeNumber(b, d, false, uint64(t.Month()), 2, false)
	case 'N':
		if m == 'E' {
			return false
		}
		writeNanos(b, d, t.Nanosecond())
	case 'n':
		padText(b, d, "\n")
	case 't':
		padText(b, d, "\t")
	case 'P':
		s := "am"
		if t.Hour() >= 12 {
			s = "pm"
		}
		padText(b, d, s)
	case 'p':
		s := "AM"
		if t.Hour() >= 12 {
			s = "PM"
		}
		return text(s, false)
	case 'q':
		return writeNumber(b, d, false, uint64((int(t.Month()-1)*11)>>5+1), 1, false)
	case 'R':
		return sub("%H:%M", -1, d.pad)
	case 'r':
		return sub("%I:%M:%S %p", -1, 0)
	case 'T':
		return sub("%H:%M:%S", -1, d.pad)
	case 'S':
		return m != 'E' && writeNumber(b, d, false, uint64(t.Second()+t.leap), 2, false)
	case 's':
		return writeNumber(b, d, t.unix < 0, uabs(t.unix), 1, false)
	case 'u':
		return writeNumber(b, d, false, uint64((wday+6)%7+1), 1, false)
	case 'U':
		return m != 'E' && writeNumber(b, d, false, uint64((yday-wday+7)/7), 2, false)
	case 'W':
		return m != 'E' && writeNumber(b, d, false, uint64((yday-(wday+6)%7+7)/7), 2, false)
	case 'w':
		return m != 'E' && writeNumber(b, d, false, uint64(wday), 1, false)
	case 'V', 'g', 'G':
		if m == 'E' {
			return false
		}
		isoYear, week := t.ISOWeek()
		switch d.format {
		case 'V':
			return writeNumber(b, d, false, uint64(week), 2, false)
		case 'G':
			y := int64(isoYear)
			return writeYearish(b, d, y < 0, uabs(y), 4, yrSpec)
		}
		yy := int64(isoYear) % 100
		if yy < 0 {
			yy = -yy
		}
		return writeYearish(b, d, false, uint64(yy), 2, yrSpec)
	case 'Y':
		if m == 'O' {
			return false
		}
		return writeYearish(b, d, year < 0, uabs(year), 4, yrSpec)
	case 'y':
		yy := year % 100
		if yy < 0 {
			yy = -yy
		}
		return writeYearish(b, d, false, uint64(yy), 2, yrSpec)
	case 'Z':
		name, _ := t.Zone()
		return text(name, false)
	case 'z':
		writeZone(b, d, t.Time, 0)
	default:
		return false
	}
	return true
}
