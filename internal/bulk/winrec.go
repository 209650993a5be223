package bulk

// Windows' directory records (FILE_ID_BOTH_DIR_INFO) read as bytes, and
// the mapping of their fields to a Record. Nothing here calls Windows, so
// the tests run it on every system; gocore_windows.go makes the calls.

import (
	"encoding/binary"
	"unicode/utf16"
)

// File attributes and reparse-tag bits, as winnt.h defines them.
const (
	winAttrDirectory    = 0x10
	winAttrDevice       = 0x40
	winAttrReparsePoint = 0x400
	// winTagNameSurrogate is set in the tag of reparse points that stand
	// for another name: symbolic links, junctions, mount points.
	winTagNameSurrogate = 0x20000000
)

// winType is the Type of a file with attributes attrs and, for a reparse
// point, reparse tag tag. A reparse point that names another file is a
// Symlink, which the walk reports and never follows (unless -L); other
// reparse points (deduplicated, cloud or compressed files) are the file
// or directory they hold.
func winType(attrs, tag uint32) Type {
	switch {
	case attrs&winAttrReparsePoint != 0 && tag&winTagNameSurrogate != 0:
		return Symlink
	case attrs&winAttrDirectory != 0:
		return Directory
	case attrs&winAttrDevice != 0:
		return Other
	}
	return Regular
}

// filetimeEpoch is 1970-01-01 as a FILETIME: 100-ns intervals since 1601.
const filetimeEpoch = 116444736000000000

// filetimeUnix converts a FILETIME to seconds and nanoseconds since 1970.
func filetimeUnix(ft int64) (sec, nsec int64) {
	t := ft - filetimeEpoch
	sec, rem := t/1e7, t%1e7
	if rem < 0 {
		sec, rem = sec-1, rem+1e7
	}
	return sec, rem * 100
}

// winBlocks is an allocation size in bytes as st_blocks: 512-byte units,
// rounded up.
func winBlocks(alloc int64) int64 {
	if alloc <= 0 {
		return 0
	}
	return (alloc + 511) / 512
}

// winDirEntry is one FILE_ID_BOTH_DIR_INFO record.
type winDirEntry struct {
	next                uint32 // NextEntryOffset: 0 for the buffer's last
	atime, mtime, ctime int64  // FILETIMEs: last access, write, change
	size, alloc         int64  // EndOfFile, AllocationSize
	attrs, tag          uint32 // FileAttributes; EaSize holds a reparse point's tag
	fileID              uint64
	name                []byte // UTF-16LE
}

// The record's field offsets (winbase.h, 8-byte aligned).
const (
	widNext     = 0
	widAtime    = 16
	widMtime    = 24
	widCtime    = 32
	widSize     = 40
	widAlloc    = 48
	widAttrs    = 56
	widNameLen  = 60
	widEaSize   = 64
	widFileID   = 96
	widName     = 104
	widMinBytes = widName
)

// parseWinDirEntry reads the record at the start of b; ok is false if b
// is too short for it.
func parseWinDirEntry(b []byte) (e winDirEntry, ok bool) {
	if len(b) < widMinBytes {
		return e, false
	}
	le := binary.LittleEndian
	n := le.Uint32(b[widNameLen:])
	if uint64(widName)+uint64(n) > uint64(len(b)) {
		return e, false
	}
	e = winDirEntry{
		next:   le.Uint32(b[widNext:]),
		atime:  int64(le.Uint64(b[widAtime:])),
		mtime:  int64(le.Uint64(b[widMtime:])),
		ctime:  int64(le.Uint64(b[widCtime:])),
		size:   int64(le.Uint64(b[widSize:])),
		alloc:  int64(le.Uint64(b[widAlloc:])),
		attrs:  le.Uint32(b[widAttrs:]),
		fileID: le.Uint64(b[widFileID:]),
		name:   b[widName : widName+n],
	}
	if e.attrs&winAttrReparsePoint != 0 {
		e.tag = le.Uint32(b[widEaSize:])
	}
	if e.next != 0 && (e.next < widMinBytes || uint64(e.next) > uint64(len(b))) {
		return e, false
	}
	return e, true
}

// winRecord fills r from e, listed in a directory on volume dev: one link
// until asked otherwise (see winLinks).
func winRecord(e *winDirEntry, dev uint64, flags uint32, r *Record) {
	*r = Record{
		Ino:    e.fileID,
		Dev:    dev,
		Blocks: winBlocks(e.alloc),
		Size:   e.size,
		Nlink:  1,
		Type:   winType(e.attrs, e.tag),
	}
	if flags&uint32(times) != 0 {
		as, an := filetimeUnix(e.atime)
		ms, mn := filetimeUnix(e.mtime)
		cs, cn := filetimeUnix(e.ctime)
		r.Tsec, r.Tnsec = pickTime(flags, [2]int64{as, an}, [2]int64{ms, mn}, [2]int64{cs, cn})
	}
}

// appendWTF8 appends the UTF-16LE name u to dst in WTF-8: UTF-8, with an
// unpaired surrogate (which Windows names may hold) encoded as its own
// three bytes, as Go's syscall does, so that the name opens again.
func appendWTF8(dst, u []byte) []byte {
	for i := 0; i+1 < len(u); i += 2 {
		c := rune(binary.LittleEndian.Uint16(u[i:]))
		if utf16.IsSurrogate(c) && c < 0xdc00 && i+3 < len(u) {
			if r := utf16.DecodeRune(c, rune(binary.LittleEndian.Uint16(u[i+2:]))); r != 0xfffd {
				dst = append(dst, byte(0xf0|r>>18), byte(0x80|(r>>12)&0x3f), byte(0x80|(r>>6)&0x3f), byte(0x80|r&0x3f))
				i += 2
				continue
			}
		}
		switch {
		case c < 0x80:
			dst = append(dst, byte(c))
		case c < 0x800:
			dst = append(dst, byte(0xc0|c>>6), byte(0x80|c&0x3f))
		default:
			dst = append(dst, byte(0xe0|c>>12), byte(0x80|(c>>6)&0x3f), byte(0x80|c&0x3f))
		}
	}
	return dst
}
