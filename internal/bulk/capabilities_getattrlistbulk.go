//go:build darwin || godu_xnu

package bulk

// kernelBufSize is the getattrlistbulk buffer: 128 KiB, well above the
// 64 KiB under which the call may fail with ERANGE, holds about 1,500
// records of godu's request.
const kernelBufSize = 128 << 10

// CanSplit reports whether a directory's names can be listed first and
// examined later by several Readers at once (Reader.Stat). On macOS one
// getattrlistbulk call returns names and attributes together, so there is
// nothing to split.
const CanSplit = false

// MountPointsShowCovered reports whether a mount point's directory record
// describes the covered directory rather than the mounted volume's root,
// so that only opening it (Mode DirStat) tells its device.
const MountPointsShowCovered = true
