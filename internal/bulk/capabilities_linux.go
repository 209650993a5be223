//go:build !godu_xnu && !godu_portable

package bulk

// kernelBufSize is the getdents64 buffer: 32 KiB holds about a thousand
// entries of typical name length, one RecordsPerBatch.
const kernelBufSize = 32 << 10

// CanSplit reports whether a directory's names can be listed first and
// examined later by several Readers at once (Reader.Stat).
const CanSplit = true

// MountPointsShowCovered reports whether a mount point's directory record
// describes the covered directory rather than the mounted volume's root,
// so that only opening it (Mode DirStat) tells its device.
const MountPointsShowCovered = false
