package du

// The writers of strftime's conversions: numbers, padding, case, zones.

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// writeBad writes text in place of a directive: padded to its width,
// upper case with ^.
func writeBad(b *tbuf, d directive, s string) {
	if d.upper {
		s = asciiCase(s, 'a', 'z')
	}
	padText(b, d, s)
}

// asciiCase changes the case of the bytes from lo to hi, as toupper and
// tolower do in the C locale.
func asciiCase(s string, lo, hi byte) string {
	b := []byte(s)
	for i, c := range b {
		if lo <= c && c <= hi {
			b[i] = c ^ 0x20
		}
	}
	return string(b)
}

// padText writes s padded on the left to the directive's width: with
// zeros for the 0 and + flags, spaces otherwise, none for -.
func padText(b *tbuf, d directive, s string) {
	if d.pad != '-' && len(s) < d.width {
		b.fill(d.fillByte(), d.width-len(s))
	}
	b.WriteString(s)
}

// padFormatted is padText for what a subformat wrote into s.
func padFormatted(b *tbuf, d directive, s *tbuf) {
	if n := s.Len(); d.pad != '-' && n < d.width {
		b.fill(d.fillByte(), d.width-n)
	}
	b.add(s)
}

// fillByte is the byte the directive pads with: '0' for the 0 and +
// flags, a space otherwise.
func (d directive) fillByte() byte {
	if d.pad == '0' || d.pad == '+' {
		return '0'
	}
	return ' '
}

// writeNumber writes a number of at least digits digits (zero padded
// unless the directive says otherwise), with a sign when negative or
// when sign is set.
func writeNumber(b *tbuf, d directive, neg bool, v uint64, digits int, sign bool) bool {
	if d.pad == 0 {
		d.pad = '0'
	}
	if d.width < 0 {
		d.width = digits
	}
	num := strconv.FormatUint(v, 10)
	if neg || sign {
		writeSigned(b, d, neg, num)
	} else {
		padText(b, d, num)
	}
	return true
}

// writeSigned writes num with a sign ('-' when neg, else '+') padded to the
// directive's width: with the _ flag, the spaces go before the sign.
func writeSigned(b *tbuf, d directive, neg bool, num string) {
	sign := "+"
	if neg {
		sign = "-"
	}
	if d.pad == '_' {
		if n := d.width - 1 - len(num); n > 0 {
			b.fill(' ', n)
			d.width -= n
		}
	}
	b.WriteString(sign)
	d.width--
	padText(b, d, num)
}

// writeSpaced is a number padded with spaces by default (%e, %k, %l).
func writeSpaced(b *tbuf, d directive, v uint64, digits int) bool {
	if d.pad == 0 {
		d.pad = '_'
	}
	return writeNumber(b, d, false, v, digits, false)
}

// writeYearish is a year-like number: the pad defaults to the enclosing
// directive's, and + signs a year longer than its digits or its width.
func writeYearish(b *tbuf, d directive, neg bool, v uint64, digits int, yrSpec byte) bool {
	if d.pad == 0 {
		d.pad = yrSpec
	}
	limit := uint64(9999)
	if digits == 2 {
		limit = 99
	}
	return writeNumber(b, d, neg, v, digits, d.pad == '+' && (v > limit || digits < d.width))
}

// writeNanos is %N: nine digits, or as many as the width says, trailing
// zeros given as padding.
func writeNanos(b *tbuf, d directive, ns int) {
	width := d.width
	if width <= 0 {
		width = 9
	}
	n, ndigs := ns, 9
	for width < ndigs || 1 < ndigs && n%10 == 0 {
		ndigs--
		n /= 10
	}
	s := fmt.Sprintf("%0*d", ndigs, n)
	if d.pad == 0 {
		d.pad = '0'
	}
	b.WriteString(s)
	if d.pad != '-' && width > ndigs {
		b.fill(d.fillByte(), width-ndigs)
	}
}

// zoneNegative says whether %z of t has a minus sign.
func zoneNegative(t time.Time) bool {
	name, diff := t.Zone()
	return diff < 0 || diff == 0 && strings.HasPrefix(name, "-")
}

// writeZone is %z (colons 0), %:z, %::z and %:::z.
func writeZone(b *tbuf, d directive, t time.Time, colons int) {
	name, diff := t.Zone()
	neg := diff < 0 || diff == 0 && strings.HasPrefix(name, "-")
	if diff < 0 {
		diff = -diff
	}
	h, m, s := diff/3600, diff/60%60, diff%60
	if colons == 3 {
		switch {
		case s != 0:
			colons = 2
		case m != 0:
			colons = 1
		}
	}
	var num string
	var digits int
	switch colons {
	case 0:
		num, digits = strconv.Itoa(h*100+m), 5
	case 1:
		num, digits = fmt.Sprintf("%d:%02d", h, m), 6
	case 2:
		num, digits = fmt.Sprintf("%d:%02d:%02d", h, m, s), 9
	case 3:
		num, digits = strconv.Itoa(h), 3
	}
	if d.pad == 0 {
		d.pad = '0'
	}
	if d.width < 0 {
		d.width = digits
	}
	writeSigned(b, d, neg, num)
}

// yearCentury is %C's number: the century, rounded down for years from 0.
func yearCentury(year int64) int64 {
	if year >= 0 {
		return year / 100
	}
	return (year-1900)/100 + 19
}

func uabs(v int64) uint64 {
	if v < 0 {
		return uint64(-v)
	}
	return uint64(v)
}
