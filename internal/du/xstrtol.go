package du

import "math/bits"

// NumError is how a number in an argument failed, in the kinds du's
// messages tell apart; several may be set at once.
type NumError int

const (
	NumOK            NumError = 0
	NumOverflow      NumError = 1 // "... too large"
	NumInvalid       NumError = 2 // "invalid ..."
	NumInvalidSuffix NumError = 4 // "invalid suffix in ..."
)

// Message is du's wording for a bad argument of option (spelled "-B" or
// "--block-size"); du quotes the argument with plain apostrophes in every
// locale.
func (e NumError) Message(option, arg string) string {
	switch {
	case e&NumInvalidSuffix != 0:
		return "invalid suffix in " + option + " argument '" + arg + "'"
	case e == NumOverflow:
		return option + " argument '" + arg + "' too large"
	}
	return "invalid " + option + " argument '" + arg + "'"
}

// Unit letters of numeric arguments: unitPower is the power of the base
// (1024, or 1000 after a second suffix B or D) each stands for, unitFactor
// the letters that instead multiply by a fixed factor. (Switches, not
// maps: nothing to build at start-up.)
func unitPower(c byte) (int, bool) {
	switch c {
	case 'k', 'K':
		return 1, true
	case 'm', 'M':
		return 2, true
	case 'g', 'G':
		return 3, true
	case 't', 'T':
		return 4, true
	case 'P':
		return 5, true
	case 'E':
		return 6, true
	case 'Z':
		return 7, true
	case 'Y':
		return 8, true
	case 'R': // ronna, 2^90 (coreutils 9.2)
		return 9, true
	case 'Q': // quetta, 2^100
		return 10, true
	}
	return 0, false
}

func unitFactor(c byte) (uint64, bool) {
	switch c {
	case 'b':
		return 512, true
	case 'B':
		return 1024, true
	case 'c':
		return 1, true
	case 'w':
		return 2, true
	}
	return 0, false
}

// Suffix sets of du's numeric options; '0' allows a second suffix (B or D
// for powers of 1000, iB for 1024). A letter in a set but in neither
// table above is an invalid suffix, as in du. Since coreutils 9.2 the
// threshold takes R and Q; the block size does not.
const (
	blockSizeSuffixes = "eEgGkKmMpPtTyYzZ0"
	thresholdSuffixes = "kKmMGTPEZYRQ0"
	noSuffixes        = ""
)

// isCSpace is isspace in the C locale.
func isCSpace(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' }

// num is a number as gnulib's xstrtoimax/xstrtoumax leave it: a magnitude
// and sign within the type's range (saturated), whether a value was stored
// at all, where the parse stopped, and the error kinds.
type num struct {
	mag uint64
	neg bool
	set bool
	end int
	err NumError
}

// xstrtol parses s with base 0 (decimal, 0octal, 0xhex) as gnulib's
// xstrtoimax (signed) or xstrtoumax does, with the unit letters of valid.
func xstrtol(s, valid string, signed bool) num {
	var n num
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	if !signed && i < len(s) && s[i] == '-' {
		return num{err: NumInvalid}
	}
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		n.neg = s[i] == '-'
		i++
	}
	base := uint64(10)
	switch {
	case i+2 < len(s) && s[i] == '0' && (s[i+1]|0x20) == 'x' && digitValue(s[i+2]) < 16:
		base = 16
		i += 2
	case i < len(s) && s[i] == '0':
		base = 8
	}
	limit := limitOf(n.neg, signed)
	start := i
	for ; i < len(s) && digitValue(s[i]) < base; i++ {
		hi, lo := bits.Mul64(n.mag, base)
		lo, carry := bits.Add64(lo, digitValue(s[i]), 0)
		if hi != 0 || carry != 0 || lo > limit {
			n.err = NumOverflow
			lo = limit
		}
		n.mag = lo
	}
	if i > start {
		n.end = i
	} else {
		if s == "" || !containsByte(valid, s[0]) {
			return num{err: NumInvalid}
		}
		n.mag, n.neg = 1, false
	}
	n.set = true
	if n.end == len(s) {
		return n
	}
	c := s[n.end]
	power, isPower := unitPower(c)
	factor, isFactor := unitFactor(c)
	if !containsByte(valid, c) || !isPower && !isFactor {
		n.err |= NumInvalidSuffix
		return n
	}
	width := 1
	if isPower {
		factor = 1024
		if containsByte(valid, '0') && n.end+1 < len(s) {
			switch s[n.end+1] {
			case 'i':
				if n.end+2 < len(s) && s[n.end+2] == 'B' {
					width = 3
				}
			case 'B', 'D':
				factor, width = 1000, 2
			}
		}
	} else {
		power = 1
	}
	for ; power > 0; power-- {
		hi, lo := bits.Mul64(n.mag, factor)
		if hi != 0 || lo > limit {
			n.err |= NumOverflow
			lo = limit
		}
		n.mag = lo
	}
	n.end += width
	if n.end != len(s) {
		n.err |= NumInvalidSuffix
	}
	return n
}

// limitOf is the largest magnitude of the type: 2^64-1 unsigned, 2^63-1
// or 2^63 signed.
func limitOf(neg, signed bool) uint64 {
	switch {
	case !signed:
		return ^uint64(0)
	case neg:
		return 1 << 63
	}
	return 1<<63 - 1
}

func digitValue(c byte) uint64 {
	switch {
	case '0' <= c && c <= '9':
		return uint64(c - '0')
	case 'a' <= c && c <= 'z':
		return uint64(c-'a') + 10
	case 'A' <= c && c <= 'Z':
		return uint64(c-'A') + 10
	}
	return 99
}

func containsByte(s string, c byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return true
		}
	}
	return false
}

// ParseMaxDepth parses a --max-depth argument as du does: an unsigned
// number with no unit; ok is false for du's "invalid maximum depth".
func ParseMaxDepth(s string) (depth uint64, ok bool) {
	n := xstrtol(s, noSuffixes, false)
	return n.mag, n.set && n.err == NumOK
}

// ParseThreshold parses a --threshold argument: a signed size with the
// unit letters du allows there.
func ParseThreshold(s string) (int64, NumError) {
	n := xstrtol(s, thresholdSuffixes, true)
	if n.err != NumOK {
		return 0, n.err
	}
	if n.neg {
		return int64(-n.mag), NumOK
	}
	return int64(n.mag), NumOK
}
