package du

import "testing"

// TestThresholdRonnaQuetta: --threshold takes coreutils 9.2's R (ronna,
// 2^90 or 10^27) and Q (quetta, 2^100 or 10^30) as it takes Y, as du 9.7
// reads them (checked against it, with every spelling of the option; the
// local du may be older and reject them, hence a table). Any count of
// either but 0 is too large; --block-size still has neither (du 9.7:
// "invalid suffix", and "invalid" for 0R).
func TestThresholdRonnaQuetta(t *testing.T) {
	for _, c := range []struct {
		arg  string
		n    int64
		want NumError
	}{
		{"0Q", 0, NumOK},
		{"0R", 0, NumOK},
		{"0RiB", 0, NumOK},
		{"0QB", 0, NumOK},
		{"-0R", 0, NumOK}, // then du's "invalid --threshold argument '-0'"
		{"1Q", 0, NumOverflow},
		{"1R", 0, NumOverflow},
		{"R", 0, NumOverflow},
		{"QiB", 0, NumOverflow},
		{"1RB", 0, NumOverflow},
		{"1RiB", 0, NumOverflow},
		{"1000Q", 0, NumOverflow},
		{"-1R", 0, NumOverflow},
		{"1Rx", 0, NumOverflow | NumInvalidSuffix},
		{"1r", 0, NumInvalidSuffix},
		{"1q", 0, NumInvalidSuffix},
	} {
		n, err := ParseThreshold(c.arg)
		if err != c.want || err == NumOK && n != c.n {
			t.Errorf("ParseThreshold(%q) = %d, %v; want %d, %v", c.arg, n, err, c.n, c.want)
		}
	}
	for arg, want := range map[string]NumError{"1R": NumInvalidSuffix, "1Q": NumInvalidSuffix, "0R": NumInvalid} {
		if _, err := ParseBlockSize(arg); err != want {
			t.Errorf("ParseBlockSize(%q): %v, want %v", arg, err, want)
		}
	}
}
