package bulk

// kernelBufSize is the getdents64 buffer: 32 KiB holds about a thousand
// entries of typical name length, one RecordsPerBatch.
const kernelBufSize = 32 << 10

// CanSplit reports whether a directory's names can be listed first and
// examined later by several Readers at once (Reader.Stat).
const CanSplit = true
