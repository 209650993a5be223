//go:build linux || darwin

package bulk

import (
	"math"

	"golang.org/x/sys/unix"
)

// The Go cores' shared pieces, mirroring csrc/bulk_common.h.

func typeOfMode(mode uint32) Type {
	switch mode & unix.S_IFMT {
	case unix.S_IFREG:
		return Regular
	case unix.S_IFDIR:
		return Directory
	case unix.S_IFLNK:
		return Symlink
	case 0:
		return Unknown
	}
	return Other
}

// fold adds r to c's sums and reports whether r may be folded: a file that
// is not a directory, has one link, was examined without error and sits on
// the directory's device.
func fold(c *ctl, r *Record) bool {
	if c.flags&uint32(Fold) == 0 || r.Errno != 0 || r.Type == Directory ||
		r.Type == Unknown || r.Nlink > 1 || r.Dev != c.foldDev || r.Flags&FlagFirmlink != 0 {
		return false
	}
	c.sumBlocks += r.Blocks
	if r.Type == Regular || r.Type == Symlink {
		c.sumSize += r.Size
	}
	c.sumCount++
	if r.Tsec > c.tmaxSec || (r.Tsec == c.tmaxSec && r.Tnsec > c.tmaxNsec) {
		c.tmaxSec, c.tmaxNsec = r.Tsec, r.Tnsec
	}
	return true
}

// reset clears a call's outputs, as csrc's godu_reset.
func reset(c *ctl) {
	c.nrecs, c.namesLen, c.more, c.err = 0, 0, 0, 0
	c.sumBlocks, c.sumSize, c.sumCount = 0, 0, 0
	c.tmaxSec, c.tmaxNsec = math.MinInt64, 0
}
