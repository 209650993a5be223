package bulk

import (
	"math"
	"syscall"
)

// The Go cores' shared pieces, mirroring csrc/bulk_common.h.

// fold adds r to c's sums and reports whether r may be folded: a file that
// is not a directory, has one link, was examined without error, sits on
// the directory's device and is no firmlink (darwin).
func fold(c *ctl, r *Record) bool {
	if c.flags&uint32(Fold) == 0 || r.Errno != 0 || r.Type == Directory ||
		r.Type == Unknown || r.Nlink > 1 || r.Dev != c.foldDev || r.Flags&FlagFirmlink != 0 {
		return false
	}
	c.sumBlocks += r.Blocks
	if r.Type == Regular || r.Type == Symlink {
		c.sumSize = AddSize(c.sumSize, r.Size)
	}
	c.sumCount++
	later(&c.tmaxSec, &c.tmaxNsec, r.Tsec, r.Tnsec)
	return true
}

// isDot reports whether a directory entry's name is "." or "..".
func isDot(nm []byte) bool {
	return len(nm) == 1 && nm[0] == '.' || len(nm) == 2 && nm[0] == '.' && nm[1] == '.'
}

// AddSize is godu_add_size (csrc/bulk_common.h): apparent sizes added as
// du adds them, as unsigned 64-bit numbers (2^63 and up stored as
// negative), saturating at 2^64-1 (-1), which du prints as "Infinity"
// (sums that large come from sparse files near 2^63 bytes, on tmpfs).
// The walk's sums add so too.
func AddSize(a, b int64) int64 {
	s := uint64(a) + uint64(b)
	if s < uint64(b) {
		return -1
	}
	return int64(s)
}

// later makes (*sec, *nsec) the later of it and (s, ns).
func later(sec, nsec *int64, s, ns int64) {
	if s > *sec || s == *sec && ns > *nsec {
		*sec, *nsec = s, ns
	}
}

// reset clears a call's outputs, as csrc's godu_reset.
func reset(c *ctl) {
	c.nrecs, c.namesLen, c.more, c.err = 0, 0, 0, 0
	c.sumBlocks, c.sumSize, c.sumCount = 0, 0, 0
	c.tmaxSec, c.tmaxNsec = math.MinInt64, 0
}

// pickTime returns the time flags ask for (ATime, CTime, else MTime) among
// a file's access, modification and change times, each (seconds,
// nanoseconds); zero when no time is asked for.
func pickTime(flags uint32, a, m, c [2]int64) (sec, nsec int64) {
	switch {
	case flags&uint32(times) == 0:
		return 0, 0
	case flags&uint32(ATime) != 0:
		return a[0], a[1]
	case flags&uint32(CTime) != 0:
		return c[0], c[1]
	}
	return m[0], m[1]
}

// statBatch examines in place, with examine, the records a NamesOnly read
// listed into r, and folds them, as csrc's godu_stat_batch.
func statBatch(c *ctl, recs []Record, names []byte, examine func(name *byte, rec *Record)) {
	n := c.nrecs
	reset(c)
	kept := uint32(0)
	for i := uint32(0); i < n; i++ {
		rec := recs[i]
		examine(&names[rec.NameOff], &rec)
		if fold(c, &rec) {
			continue
		}
		recs[kept] = rec
		kept++
	}
	c.nrecs = kept
}

// errnoOf is err's errno, EIO for an error that carries none.
func errnoOf(err error) syscall.Errno {
	if e, ok := err.(syscall.Errno); ok {
		return e
	}
	return syscall.EIO
}
