package du

import (
	"math"
	"math/rand"
	"testing"

	"github.com/dustin/go-humanize"
)

// TestHumanize: comma and iBytes write what go-humanize's Comma and
// IBytes write, which the progress line and --stats used before.
func TestHumanize(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	ints := []int64{0, 1, -1, 9, 10, 999, 1000, -1000, 999999, 1000000, math.MaxInt64, math.MinInt64 + 1}
	for range 20000 {
		ints = append(ints, rng.Int63n(1<<uint(rng.Intn(62)+1)), -rng.Int63n(1<<20))
	}
	for _, n := range ints {
		if got, want := comma(n), humanize.Comma(n); got != want {
			t.Errorf("comma(%d) = %q, want %q", n, got, want)
		}
	}
	sizes := []uint64{0, 9, 10, 1023, 1024, 1025, 10239, 10240, 1 << 20, 1<<20 - 1, 1 << 62, math.MaxUint64}
	for range 20000 {
		sizes = append(sizes, uint64(rng.Int63n(1<<uint(rng.Intn(62)+1))))
	}
	for _, s := range sizes {
		if got, want := iBytes(s), humanize.IBytes(s); got != want {
			t.Errorf("iBytes(%d) = %q, want %q", s, got, want)
		}
	}
}
