package du

import (
	"errors"
	"math/bits"
	"os"
	"strconv"
	"strings"
)

// Output options for sizes, as gnulib's human_readable understands them.
const (
	humanGroupDigits = 1 << iota // ' prefix: thousands separators (none in the C locale)
	humanAutoscale               // -h, --si: choose the unit per number
	humanSI                      // print a unit suffix
	humanBase1024                // units are powers of 1024
	humanB                       // append B (or iB) to the suffix
)

// BlockSize is how du prints a size: divided by Size, rounded up, and
// formatted per Opts. The zero value is not valid; see DefaultBlockSize.
type BlockSize struct {
	Size uint64
	Opts int
}

// DefaultBlockSize is du's unit when no option says otherwise: the first of
// DU_BLOCK_SIZE, BLOCK_SIZE and BLOCKSIZE that is set, else 1024 (512 under
// POSIXLY_CORRECT).
func DefaultBlockSize() BlockSize {
	for _, v := range []string{"DU_BLOCK_SIZE", "BLOCK_SIZE", "BLOCKSIZE"} {
		if s, ok := os.LookupEnv(v); ok {
			if bs, err := ParseBlockSize(s); err == nil {
				return bs
			}
			break
		}
	}
	if _, ok := os.LookupEnv("POSIXLY_CORRECT"); ok {
		return BlockSize{Size: 512}
	}
	return BlockSize{Size: 1024}
}

// Errors of ParseBlockSize, matching xstrtol's kinds.
var (
	ErrInvalid       = errors.New("invalid")
	ErrInvalidSuffix = errors.New("invalid suffix")
	ErrTooLarge      = errors.New("too large")
)

// ParseBlockSize parses a --block-size argument as du does: an optional '
// (group digits), then "human-readable", "si", or an integer with an
// optional unit (K, M, G, T, P, E, Z, Y, R, Q; with B for powers of 1000,
// iB or nothing for powers of 1024). A unit without a number prints the
// unit after each size.
func ParseBlockSize(spec string) (BlockSize, error) {
	var bs BlockSize
	if strings.HasPrefix(spec, "'") {
		bs.Opts |= humanGroupDigits
		spec = spec[1:]
	}
	switch {
	case spec != "" && strings.HasPrefix("human-readable", spec):
		bs.Opts |= humanAutoscale | humanSI | humanBase1024
		bs.Size = 1
		return bs, nil
	case spec != "" && strings.HasPrefix("si", spec):
		bs.Opts |= humanAutoscale | humanSI
		bs.Size = 1
		return bs, nil
	}
	n, suffix, err := parseSize(spec, "EGKMPTYZRQkmgtpe0")
	if err != nil {
		return bs, err
	}
	if n == 0 {
		return bs, ErrInvalid
	}
	if suffix != "" && (spec == "" || spec[0] < '0' || spec[0] > '9') {
		bs.Opts |= humanSI
		if strings.HasSuffix(suffix, "B") {
			bs.Opts |= humanB
		}
		if !strings.HasSuffix(suffix, "B") || strings.HasSuffix(suffix, "iB") {
			bs.Opts |= humanBase1024
		}
	}
	bs.Size = n
	return bs, nil
}

// parseSize is xstrtoumax with base 0: a decimal, octal (0...) or hex
// (0x...) number, optional when a unit follows, then at most one unit
// letter from valid, which may be followed by "B", "D" (powers of 1000) or
// "iB" (powers of 1024). It returns the value and the unit text.
func parseSize(s, valid string) (uint64, string, error) {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	if i < len(s) && s[i] == '-' {
		return 0, "", ErrInvalid
	}
	start := i
	base := 10
	if strings.HasPrefix(s[i:], "0x") || strings.HasPrefix(s[i:], "0X") {
		if i+2 < len(s) && isDigit(s[i+2], 16) {
			base = 16
			i += 2
		}
	} else if strings.HasPrefix(s[i:], "0") {
		base = 8
	}
	digitsStart := i
	for i < len(s) && isDigit(s[i], base) {
		i++
	}
	var v uint64 = 1
	overflow := false
	if i > digitsStart {
		n, err := strconv.ParseUint(s[digitsStart:i], base, 64)
		if err != nil {
			overflow = true
			n = ^uint64(0)
		}
		v = n
	} else if i == start && (i == len(s) || !strings.ContainsRune(valid, rune(s[i]))) {
		return 0, "", ErrInvalid
	}
	rest := s[i:]
	if rest == "" {
		if overflow {
			return 0, "", ErrTooLarge
		}
		return v, "", nil
	}
	if !strings.ContainsRune(valid, rune(rest[0])) {
		return 0, "", ErrInvalidSuffix
	}
	base1000 := false
	n := 1
	if strings.ContainsRune(valid, '0') && len(rest) > 1 {
		switch {
		case rest[1] == 'i' && len(rest) > 2 && rest[2] == 'B':
			n = 3
		case rest[1] == 'B' || rest[1] == 'D':
			base1000 = true
			n = 2
		}
	}
	if len(rest) != n {
		return 0, "", ErrInvalidSuffix
	}
	mult := uint64(1024)
	if base1000 {
		mult = 1000
	}
	power := strings.IndexByte("KMGTPEZYRQ", upper(rest[0])) + 1
	for p := 0; p < power; p++ {
		if v > ^uint64(0)/mult {
			overflow = true
			v = ^uint64(0)
			break
		}
		v *= mult
	}
	if overflow {
		return 0, "", ErrTooLarge
	}
	return v, rest, nil
}

func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

func isDigit(c byte, base int) bool {
	switch {
	case '0' <= c && c <= '9':
		return int(c-'0') < base
	case base == 16 && 'a' <= c && c <= 'f', base == 16 && 'A' <= c && c <= 'F':
		return true
	}
	return false
}

// Format prints a size of n bytes in bs, rounding up as du does: to the
// block size, or with autoscaling to one decimal below 10 and to an
// integer above, carrying into the next unit.
func (bs BlockSize) Format(n uint64) string {
	base := uint64(1000)
	if bs.Opts&humanBase1024 != 0 {
		base = 1024
	}
	to := bs.Size
	if to == 0 {
		to = 1
	}
	// amount + (tenths + rounding/4)/10 is n/to, kept exact.
	amount := n / to
	rem := n % to
	tenths := uint64(0)
	rounding := 0 // 0: exact, 1: below half, 2: half, 3: above half
	if rem != 0 {
		hi, lo := bits.Mul64(rem, 10)
		t, r := bits.Div64(hi, lo, to) // hi < to since rem < to
		tenths = t
		switch {
		case r == 0:
			rounding = 0
		case r < to-r:
			rounding = 1
		case r == to-r:
			rounding = 2
		default:
			rounding = 3
		}
	}
	exponent := -1
	decimal := ""
	if bs.Opts&humanAutoscale != 0 {
		exponent = 0
		if base <= amount {
			for {
				r10 := (amount%base)*10 + tenths
				r2 := (r10%base)*2 + uint64(rounding>>1)
				amount /= base
				tenths = r10 / base
				if r2 < base {
					if r2+uint64(rounding) != 0 {
						rounding = 1
					} else {
						rounding = 0
					}
				} else if base < r2+uint64(rounding) {
					rounding = 3
				} else {
					rounding = 2
				}
				exponent++
				if !(base <= amount && exponent < 10) {
					break
				}
			}
			if amount < 10 {
				if rounding > 0 {
					tenths++
					rounding = 0
					if tenths == 10 {
						amount++
						tenths = 0
					}
				}
				if amount < 10 {
					decimal = "." + strconv.FormatUint(tenths, 10)
					tenths, rounding = 0, 0
				}
			}
		}
	}
	if tenths+uint64(rounding) > 0 {
		amount++
		if bs.Opts&humanAutoscale != 0 && amount == base && exponent < 10 {
			exponent++
			decimal = ".0"
			amount = 1
		}
	}
	out := strconv.FormatUint(amount, 10) + decimal
	if bs.Opts&humanSI != 0 {
		if exponent < 0 {
			exponent = 0
			for power := uint64(1); power < to; power *= base {
				exponent++
				if exponent == 10 {
					break
				}
			}
		}
		if exponent > 0 {
			if bs.Opts&humanBase1024 == 0 && exponent == 1 {
				out += "k"
			} else {
				out += string("KMGTPEZYRQ"[exponent-1])
			}
		}
		if bs.Opts&humanB != 0 {
			if bs.Opts&humanBase1024 != 0 && exponent > 0 {
				out += "i"
			}
			out += "B"
		}
	}
	return out
}

// ParseThreshold parses a --threshold argument: a size as for
// --block-size, possibly negative.
func ParseThreshold(s string) (int64, error) {
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	n, _, err := parseSize(s, "EGKMPTYZRQkmgtpe0")
	if err != nil {
		return 0, err
	}
	if n > 1<<63-1 {
		return 0, ErrTooLarge
	}
	if neg {
		if n == 0 {
			return 0, ErrInvalid
		}
		return -int64(n), nil
	}
	return int64(n), nil
}
