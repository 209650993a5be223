package du

import (
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

// DefaultBlockSize is du's unit when no option gives one: from the first
// of DU_BLOCK_SIZE, BLOCK_SIZE and BLOCKSIZE that is set, read as du reads
// it (a bad value leaves whatever number it began with, or 1024, or 512
// under POSIXLY_CORRECT).
func DefaultBlockSize() BlockSize {
	for _, v := range []string{"DU_BLOCK_SIZE", "BLOCK_SIZE", "BLOCKSIZE"} {
		if s, ok := os.LookupEnv(v); ok {
			bs, _ := humanOptions(s, BlockSize{})
			return bs
		}
	}
	return BlockSize{Size: fallbackBlockSize()}
}

func fallbackBlockSize() uint64 {
	if _, ok := os.LookupEnv("POSIXLY_CORRECT"); ok {
		return 512
	}
	return 1024
}

// ParseBlockSize parses a --block-size argument as du does: an optional '
// (group digits), then an abbreviation of "human-readable" or "si", or a
// number with an optional unit (K, M, G, T, P, E, Z, Y; with B for powers
// of 1000, iB or nothing for powers of 1024). A unit without a number
// prints the unit after each size.
func ParseBlockSize(spec string) (BlockSize, NumError) {
	return humanOptions(spec, BlockSize{Size: 1024})
}

// humanOptions is gnulib's human_options: prev is the block size before,
// which a value that is not even a number leaves in place.
func humanOptions(spec string, prev BlockSize) (BlockSize, NumError) {
	bs := BlockSize{Size: prev.Size}
	if strings.HasPrefix(spec, "'") {
		bs.Opts |= humanGroupDigits
		spec = spec[1:]
	}
	switch abbreviates(spec, "human-readable", "si") {
	case 0:
		bs.Opts |= humanAutoscale | humanSI | humanBase1024
		bs.Size = 1
		return bs, NumOK
	case 1:
		bs.Opts |= humanAutoscale | humanSI
		bs.Size = 1
		return bs, NumOK
	}
	n := xstrtol(spec, blockSizeSuffixes, false)
	if n.set {
		bs.Size = n.mag
	}
	err := n.err
	if err != NumOK {
		bs.Opts = 0
	} else {
		for i := 0; i <= n.end && (i == len(spec) || spec[i] < '0' || spec[i] > '9'); i++ {
			if i == n.end {
				bs.Opts |= humanSI
				if spec[i-1] == 'B' {
					bs.Opts |= humanB
				}
				if spec[i-1] != 'B' || i >= 2 && spec[i-2] == 'i' {
					bs.Opts |= humanBase1024
				}
				break
			}
		}
	}
	if bs.Size == 0 {
		bs.Size = fallbackBlockSize()
		err = NumInvalid
	}
	return bs, err
}

// abbreviates is gnulib's argmatch without values: the index of the word
// s is, or abbreviates alone; -1 for none, -2 when ambiguous.
func abbreviates(s string, words ...string) int {
	found := -1
	for i, w := range words {
		if !strings.HasPrefix(w, s) {
			continue
		}
		if w == s {
			return i
		}
		if found != -1 {
			return -2
		}
		found = i
	}
	return found
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
	// amount + (tenths + rounding/4)/10 is n/to, in du's unsigned 64-bit
	// arithmetic: exact but where the remainder times 10 or 20 passes
	// 2^64 (block sizes over 2^64/10), where du's wraps, and so does
	// this (2^62 bytes in blocks of 15 EiB: 0, as du prints it).
	amount := n / to
	r10 := n % to * 10
	r2 := r10 % to * 2
	tenths := r10 / to
	rounding := 0 // 0: exact, 1: below half, 2: half, 3: above half
	switch {
	case r2 == 0:
	case r2 < to:
		rounding = 1
	case r2 == to:
		rounding = 2
	default:
		rounding = 3
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
