package du

import (
	"bufio"
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Zone converts times to local time as the C library reads TZ: unset or
// ":", the system's zone (/etc/localtime); empty, UTC; otherwise (less a
// leading ':') a zone file (absolute, or under TZDIR or
// /usr/share/zoneinfo), else a POSIX rule such as EST5EDT,M3.2.0,M11.1.0
// or <+03>-3, else UTC under whatever name the rule began with. A zone
// file's leap seconds (those of the right/ tree) count as the C library
// counts them: a time shows that many seconds earlier, 23:59:60 at one.
type Zone struct {
	loc   *time.Location // a zone file, or nil
	rule  *tzRule
	leaps []leapSecond // the zone file's, in order
}

// leapSecond is a zone file's leap-second record: from at on, times are
// corr seconds ahead of the clock.
type leapSecond struct{ at, corr int64 }

// defaultZone is the zone file read when TZ is unset or names none.
const defaultZone = "/etc/localtime"

// LocalZone reads TZ.
func LocalZone() Zone {
	tz, set := os.LookupEnv("TZ")
	if tz == "" && set {
		tz = "Universal"
	}
	tz = strings.TrimPrefix(tz, ":")
	file := tz
	switch {
	case tz == "":
		file = defaultZone
	case !strings.HasPrefix(tz, "/"):
		dir := os.Getenv("TZDIR")
		if dir == "" {
			dir = "/usr/share/zoneinfo"
		}
		file = filepath.Join(dir, tz)
	}
	if data, err := os.ReadFile(file); err == nil {
		if loc, err := time.LoadLocationFromTZData(tz, data); err == nil {
			return Zone{loc: loc, leaps: tzifLeaps(data)}
		}
	}
	switch {
	case !set:
		return Zone{loc: time.Local} // the system's own way (Windows)
	case tz == "" || file == defaultZone:
		return Zone{rule: &tzRule{std: "UTC"}}
	}
	return Zone{rule: parseTZRule(tz)}
}

// tzifLeaps returns the leap-second records of TZif data, from its
// 64-bit part where it has one, as the C library reads them.
func tzifLeaps(data []byte) []leapSecond {
	const header = 44
	counts := func(d []byte) (isut, isstd, leap, times, types, chars int) {
		c := func(i int) int { return int(binary.BigEndian.Uint32(d[20+4*i:])) }
		return c(0), c(1), c(2), c(3), c(4), c(5)
	}
	if len(data) < header || string(data[:4]) != "TZif" {
		return nil
	}
	isut, isstd, nleap, ntime, ntype, nchar := counts(data)
	size := 4
	if data[4] >= '2' {
		v1 := header + ntime*5 + ntype*6 + nchar + nleap*8 + isstd + isut
		if len(data) < v1+header || string(data[v1:v1+4]) != "TZif" {
			return nil
		}
		data = data[v1:]
		isut, isstd, nleap, ntime, ntype, nchar = counts(data)
		size = 8
	}
	off := header + ntime*(size+1) + ntype*6 + nchar
	if nleap == 0 || len(data) < off+nleap*(size+4) {
		return nil
	}
	leaps := make([]leapSecond, nleap)
	for i := range leaps {
		b := data[off+i*(size+4):]
		at := int64(int32(binary.BigEndian.Uint32(b)))
		if size == 8 {
			at = int64(binary.BigEndian.Uint64(b))
		}
		leaps[i] = leapSecond{at, int64(int32(binary.BigEndian.Uint32(b[size:])))}
	}
	return leaps
}

// leapAt returns the correction in effect at sec and, right at a leap
// second, how many seconds past :59 the clock shows (glibc's
// __tzfile_compute).
func (z Zone) leapAt(sec int64) (corr int64, hit int) {
	i := len(z.leaps)
	for {
		if i == 0 {
			return 0, 0
		}
		i--
		if sec >= z.leaps[i].at {
			break
		}
	}
	corr = z.leaps[i].corr
	prev := int64(0)
	if i > 0 {
		prev = z.leaps[i-1].corr
	}
	if sec == z.leaps[i].at && corr > prev {
		hit = 1
		for ; i > 0 && z.leaps[i].at == z.leaps[i-1].at+1 && z.leaps[i].corr == z.leaps[i-1].corr+1; i-- {
			hit++
		}
	}
	return corr, hit
}

// Format is Strftime(format) of the time ns nanoseconds after the epoch,
// in the zone.
func (z Zone) Format(format string, ns int64) string {
	return z.in(time.Unix(0, ns)).format(format)
}

// formatTo writes Format(format, ns) to w, its padding as it goes,
// through b (emptied first: one tbuf serves every line).
func (z Zone) formatTo(w *bufio.Writer, b *tbuf, format string, ns int64) {
	b.reset()
	strftime(b, format, z.in(time.Unix(0, ns)), false, 0, -1)
	b.writeTo(w)
}

// in is t in the zone, broken down as the C library does.
func (z Zone) in(t time.Time) moment {
	m := moment{unix: t.Unix()}
	if z.loc == nil {
		name, off := z.rule.at(m.unix)
		m.Time = t.In(time.FixedZone(name, off))
		return m
	}
	m.Time = t.In(z.loc)
	corr, hit := z.leapAt(m.unix)
	if corr != 0 || hit != 0 {
		name, off := m.Zone()
		m.Time = t.Add(-time.Duration(corr) * time.Second).In(time.FixedZone(name, off))
		m.leap = hit
	}
	return m
}

// tzRule is a POSIX TZ value as glibc parses it: the standard name and
// offset (seconds east), and optionally daylight time with its two
// changes.
type tzRule struct {
	std, dst       string
	stdOff, dstOff int
	hasDST         bool
	start, end     tzChange
}

// tzChange is one rule of a change: Jn (julian, no leap day), n (day of
// year from 0) or Mm.w.d, at secs after local midnight.
type tzChange struct {
	kind    byte // 'J', 'n' or 'M'
	d, m, w int
	secs    int
}

func parseTZRule(s string) *tzRule {
	r := &tzRule{}
	name, rest, ok := tzName(s)
	if !ok {
		return r
	}
	r.std = name
	off, rest, ok := tzOffset(rest, true)
	if !ok {
		return r
	}
	r.stdOff = off
	if rest == "" {
		return r
	}
	// Daylight time: a name, or else (as in glibc) a nameless zone at
	// offset 0 whose changes are read from the same text.
	r.hasDST = true
	if name, after, ok := tzName(rest); ok {
		r.dst, r.dstOff, rest = name, r.stdOff+3600, after
		if off, after, ok := tzOffset(rest, false); ok {
			r.dstOff, rest = off, after
		}
		if rest == "" || rest == "," { // the default rule file's dates: the U.S. ones
			r.start = tzChange{kind: 'M', m: 3, w: 2, secs: 7200}
			r.end = tzChange{kind: 'M', m: 11, w: 1, secs: 7200}
			return r
		}
	}
	// A change that does not parse is left as glibc leaves it: day 0 of
	// the year at midnight (and the end is not read after a bad start).
	start, rest, ok := tzParseChange(rest, tzChange{kind: 'M', m: 3, w: 2})
	if !ok {
		r.start, r.end = tzChange{kind: 'n'}, tzChange{kind: 'n'}
		return r
	}
	r.start = start
	if r.end, _, ok = tzParseChange(rest, tzChange{kind: 'M', m: 11, w: 1}); !ok {
		r.end = tzChange{kind: 'n'}
	}
	return r
}

// tzName is a name of three letters or more, or <...> of three or more
// letters, digits, '+' and '-'.
func tzName(s string) (name, rest string, ok bool) {
	i := 0
	for i < len(s) && isASCIILetter(s[i]) {
		i++
	}
	if i >= 3 {
		return s[:i], s[i:], true
	}
	if !strings.HasPrefix(s, "<") {
		return "", s, false
	}
	i = 1
	for i < len(s) && (isASCIILetter(s[i]) || isASCIIDigit(s[i]) || s[i] == '+' || s[i] == '-') {
		i++
	}
	if i == len(s) || s[i] != '>' || i-1 < 3 {
		return "", s, false
	}
	return s[1:i], s[i+1:], true
}

func isASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// tzOffset is [+-]hh[:mm[:ss]], west of UTC positive; returned east.
func tzOffset(s string, std bool) (int, string, bool) {
	if std && (s == "" || s[0] != '+' && s[0] != '-' && !isASCIIDigit(s[0])) {
		return 0, s, false
	}
	sign := -1
	if s != "" && (s[0] == '+' || s[0] == '-') {
		if s[0] == '-' {
			sign = 1
		}
		s = s[1:]
	}
	secs, rest, ok := tzClock(s, true)
	if !ok {
		return 0, s, false
	}
	return sign * secs, rest, true
}

// tzClock is hh[:mm[:ss]] as sscanf's %hu reads each part; an offset
// (clamp) takes at most 24 hours, 59 minutes and 59 seconds, as glibc's
// does, a change's time of day any.
func tzClock(s string, clamp bool) (int, string, bool) {
	parts := [3]int{}
	rest := s
	n := 0
	for n < 3 {
		v, after, ok := scanUshort(rest)
		if !ok {
			break
		}
		parts[n] = v
		n++
		s = after
		if n == 3 || !strings.HasPrefix(after, ":") {
			break
		}
		rest = after[1:]
	}
	if n == 0 {
		return 0, s, false
	}
	if clamp {
		parts[0], parts[1], parts[2] = min(parts[0], 24), min(parts[1], 59), min(parts[2], 59)
	}
	return parts[0]*3600 + parts[1]*60 + parts[2], s, true
}

// scanUshort is sscanf's %hu: blanks, a sign, digits, modulo 2^16.
func scanUshort(s string) (int, string, bool) {
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	start := i
	v := 0
	for i < len(s) && isASCIIDigit(s[i]) {
		v = (v*10 + int(s[i]-'0')) & 0xffff
		i++
	}
	if i == start {
		return 0, s, false
	}
	if neg {
		v = -v & 0xffff
	}
	return v, s[i:], true
}

func tzParseChange(s string, dflt tzChange) (tzChange, string, bool) {
	s = strings.TrimPrefix(s, ",")
	var c tzChange
	switch {
	case s != "" && (s[0] == 'J' || isASCIIDigit(s[0])):
		c.kind = 'n'
		if s[0] == 'J' {
			c.kind = 'J'
			s = s[1:]
			if s == "" || !isASCIIDigit(s[0]) {
				return c, s, false
			}
		}
		i := 0
		for i < len(s) && isASCIIDigit(s[i]) {
			i++
		}
		d, err := strconv.Atoi(s[:i])
		if err != nil || d > 365 || c.kind == 'J' && d == 0 {
			return c, s, false
		}
		c.d, s = d, s[i:]
	case strings.HasPrefix(s, "M"):
		var ok bool
		vals := [3]int{}
		rest := s[1:]
		for k := 0; k < 3; k++ {
			if k > 0 {
				if !strings.HasPrefix(rest, ".") {
					return c, s, false
				}
				rest = rest[1:]
			}
			if vals[k], rest, ok = scanUshort(rest); !ok {
				return c, s, false
			}
		}
		c = tzChange{kind: 'M', m: vals[0], w: vals[1], d: vals[2]}
		if c.m < 1 || c.m > 12 || c.w < 1 || c.w > 5 || c.d > 6 {
			return c, s, false
		}
		s = rest
	case s == "":
		c = dflt
	default:
		return c, s, false
	}
	c.secs = 7200
	switch {
	case s != "" && s[0] != '/' && s[0] != ',':
		return c, s, false
	case strings.HasPrefix(s, "/"):
		s = s[1:]
		if s == "" {
			return c, s, false
		}
		neg := s[0] == '-'
		if neg {
			s = s[1:]
		}
		secs, rest, ok := tzClock(s, false)
		if !ok {
			secs, rest = 7200, s
		}
		if neg {
			secs = -secs
		}
		c.secs, s = secs, rest
	}
	return c, s, true
}

// at is the name and offset at unix time sec, computed as glibc does from
// the UTC year of sec (rules of years up to 1970 counted from 1970's
// January 1st, as there).
func (r *tzRule) at(sec int64) (string, int) {
	if !r.hasDST {
		return r.std, r.stdOff
	}
	year := time.Unix(sec, 0).UTC().Year()
	start := r.start.change(year, r.stdOff)
	end := r.end.change(year, r.dstOff)
	var dst bool
	if start > end {
		dst = sec < end || sec >= start
	} else {
		dst = sec >= start && sec < end
	}
	if dst {
		return r.dst, r.dstOff
	}
	return r.std, r.stdOff
}

func isLeap(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

// change is glibc's compute_change.
func (c tzChange) change(year, offset int) int64 {
	var t int64
	if year > 1970 {
		t = time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	}
	const day = 86400
	switch c.kind {
	case 'J':
		t += int64(c.d-1) * day
		if c.d >= 60 && isLeap(year) {
			t += day
		}
	case 'n':
		t += int64(c.d) * day
	case 'M':
		first := time.Date(year, time.Month(c.m), 1, 0, 0, 0, 0, time.UTC)
		t += int64(first.YearDay()-1) * day
		days := first.AddDate(0, 1, -1).Day()
		dow := int(first.Weekday())
		d := c.d - dow
		if d < 0 {
			d += 7
		}
		for i := 1; i < c.w; i++ {
			if d+7 >= days {
				break
			}
			d += 7
		}
		t += int64(d) * day
	}
	return t - int64(offset) + int64(c.secs)
}
