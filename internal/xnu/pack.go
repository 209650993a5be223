// Package xnu is a stand-in for the parts of the macOS kernel that godu's
// darwin core talks to, so that the darwin core runs on Linux: a
// getattrlistbulk(2) over real Linux directories that packs records byte
// for byte as XNU does (testdata/getattrlistbulk/FORMAT.md), the stat
// fields the core reads (st_flags included), the BSD directory-entry
// layout, and faults to inject. It is for tests and the godu_xnu build
// only; no shipped binary links it.
//
// The record packer (AppendRecord) is the one builder of getattrlistbulk
// records in the repository: the parser tests lay their fixtures out with
// it, and the emulation packs every entry with it.
package xnu

import "encoding/binary"

// The SDK's sys/attr.h and sys/stat.h values (FORMAT.md, "Constants").
const (
	AttrBitMapCount = 5

	AttrCmnName          = 0x00000001
	AttrCmnDevID         = 0x00000002
	AttrCmnFsID          = 0x00000004
	AttrCmnObjType       = 0x00000008
	AttrCmnFlags         = 0x00040000
	AttrCmnFileID        = 0x02000000
	AttrCmnParentID      = 0x04000000
	AttrCmnError         = 0x20000000
	AttrCmnReturnedAttrs = 0x80000000

	AttrDirLinkCount   = 0x01
	AttrDirEntryCount  = 0x02
	AttrDirMountStatus = 0x04
	AttrDirAllocSize   = 0x08
	AttrDirIOBlockSize = 0x10
	AttrDirDataLength  = 0x20

	AttrFileLinkCount     = 0x001
	AttrFileTotalSize     = 0x002
	AttrFileAllocSize     = 0x004
	AttrFileIOBlockSize   = 0x008
	AttrFileDataLength    = 0x200
	AttrFileDataAllocSize = 0x400

	FsoptNofollow       = 0x1
	FsoptPackInvalAttrs = 0x8

	VNON, VREG, VDIR, VBLK, VCHR, VLNK, VSOCK, VFIFO = 0, 1, 2, 3, 4, 5, 6, 7

	SFFirmlink = 0x00800000
	SFDataless = 0x40000000
)

// Req is what a caller asks of getattrlistbulk: attribute sets and options.
type Req struct {
	Common, Dir, File, Options uint32
}

// Entry is one directory entry's attributes as a file system reports them.
type Entry struct {
	Name    []byte
	ObjType uint32 // VREG, VDIR, VLNK, ...
	Dev     uint32
	Ino     uint64
	Flags   uint32 // st_flags
	Links   uint32
	Alloc   uint64 // ATTR_FILE_ALLOCSIZE or ATTR_DIR_ALLOCSIZE, bytes
	DataLen uint64 // ATTR_FILE_DATALENGTH or ATTR_DIR_DATALENGTH
	Errno   uint32 // non-zero: the entry could not be examined (an error record)
	// DropCmn and DropSect are attributes the file system does not
	// return for this entry (common, and directory or file ones).
	DropCmn  uint32
	DropSect uint32
}

// CmnSize is the size of a common attribute's fixed field; 0 for ERROR,
// RETURNED_ATTRS and bits the packer does not know.
func CmnSize(bit uint32) uint32 {
	switch bit {
	case AttrCmnName, AttrCmnFsID, AttrCmnFileID, AttrCmnParentID:
		return 8
	case AttrCmnDevID, AttrCmnObjType, AttrCmnFlags:
		return 4
	}
	return 0
}

// DirSize is the size of a directory attribute's fixed field.
func DirSize(bit uint32) uint32 {
	switch bit {
	case AttrDirLinkCount, AttrDirEntryCount, AttrDirMountStatus, AttrDirIOBlockSize:
		return 4
	case AttrDirAllocSize, AttrDirDataLength:
		return 8
	}
	return 0
}

// FileSize is the size of a file attribute's fixed field.
func FileSize(bit uint32) uint32 {
	switch bit {
	case AttrFileLinkCount, AttrFileIOBlockSize:
		return 4
	case AttrFileTotalSize, AttrFileAllocSize, AttrFileDataLength, AttrFileDataAllocSize:
		return 8
	}
	return 0
}

func roundup(n, m uint32) uint32 { return (n + m - 1) / m * m }

// AppendRecord appends e's record, laid out for request req as XNU's
// packer lays it out (FORMAT.md, "One record"), to dst. With unpadded the
// record ends right after the name's NUL, as the last record of a full
// buffer may.
func AppendRecord(dst []byte, e Entry, req Req, unpadded bool) []byte {
	start := len(dst)
	le := binary.LittleEndian
	put32 := func(v uint32) { dst = le.AppendUint32(dst, v) }
	put64 := func(v uint64) { dst = le.AppendUint64(dst, v) }
	inval := req.Options&FsoptPackInvalAttrs != 0
	nameLen := uint32(len(e.Name)) + 1
	if e.Errno != 0 {
		// An error record: the returned set, ERROR, the name.
		put32(0) // length, set by finish
		put32(AttrCmnReturnedAttrs | AttrCmnName | AttrCmnError)
		for i := 0; i < 4; i++ {
			put32(0)
		}
		put32(e.Errno)
		put32(8)
		put32(nameLen)
		return finish(dst, start, 36, e.Name, unpadded)
	}
	isDir := e.ObjType == VDIR
	sectReq, sectSize := req.File, FileSize
	if isDir {
		sectReq, sectSize = req.Dir, DirSize
	}
	// fixedsize counts every requested attribute valid for the type,
	// returned or not: an omitted one leaves a hole before the name.
	fixedsize := uint32(24)
	for bit := uint32(1); bit != 0; bit <<= 1 {
		if bit == AttrCmnReturnedAttrs || req.Common&bit == 0 {
			continue
		}
		if bit == AttrCmnError {
			fixedsize += 4
		} else {
			fixedsize += roundup(CmnSize(bit), 4)
		}
	}
	for bit := uint32(1); bit != 0; bit <<= 1 {
		if sectReq&bit != 0 {
			fixedsize += roundup(sectSize(bit), 4)
		}
	}
	retCmn := req.Common &^ e.DropCmn &^ AttrCmnError
	if inval {
		retCmn |= req.Common & AttrCmnError
	}
	retSect := sectReq &^ e.DropSect
	put32(0) // length, set by finish
	put32(retCmn)
	put32(0)
	if isDir {
		put32(retSect)
		put32(0)
	} else {
		put32(0)
		put32(retSect)
	}
	put32(0)
	// ERROR comes first, and only with PACK_INVAL in a record that is
	// not an error record.
	if inval && req.Common&AttrCmnError != 0 {
		put32(0)
	}
	lay := retCmn
	if inval {
		lay = req.Common
	}
	for bit := uint32(1); bit != 0; bit <<= 1 {
		if lay&bit == 0 || bit == AttrCmnReturnedAttrs || bit == AttrCmnError {
			continue
		}
		valid := retCmn&bit != 0
		switch bit {
		case AttrCmnName:
			// The reference's offset is relative to the reference.
			at := uint32(len(dst) - start)
			put32(fixedsize - at)
			put32(nameLen)
		case AttrCmnDevID:
			put32(pick32(valid, e.Dev))
		case AttrCmnObjType:
			put32(pick32(valid, e.ObjType))
		case AttrCmnFlags:
			put32(pick32(valid, e.Flags))
		case AttrCmnFileID:
			put64(pick64(valid, e.Ino))
		case AttrCmnFsID, AttrCmnParentID:
			put64(0)
		}
	}
	slay := retSect
	if inval {
		slay = sectReq
	}
	for bit := uint32(1); bit != 0; bit <<= 1 {
		if slay&bit == 0 {
			continue
		}
		valid := retSect&bit != 0
		switch {
		case isDir && bit == AttrDirAllocSize, !isDir && bit == AttrFileAllocSize:
			put64(pick64(valid, e.Alloc))
		case isDir && bit == AttrDirDataLength, !isDir && bit == AttrFileDataLength:
			put64(pick64(valid, e.DataLen))
		case !isDir && bit == AttrFileLinkCount, isDir && bit == AttrDirLinkCount:
			put32(pick32(valid, e.Links))
		case sectSize(bit) == 8:
			put64(0)
		default:
			put32(pick32(valid, 3))
		}
	}
	for uint32(len(dst)-start) < fixedsize {
		dst = append(dst, 0) // the holes of omitted attributes
	}
	return finish(dst, start, fixedsize, e.Name, unpadded)
}

func pick32(valid bool, v uint32) uint32 {
	if valid {
		return v
	}
	return 0
}

func pick64(valid bool, v uint64) uint64 {
	if valid {
		return v
	}
	return 0
}

// finish cuts the record at start to its fixed size, appends the name
// (NUL, padding to 4) and pads the record to 8, then writes its length.
func finish(dst []byte, start int, fixedsize uint32, name []byte, unpadded bool) []byte {
	dst = append(dst[:start+int(fixedsize)], name...)
	dst = append(dst, 0)
	if !unpadded {
		for (len(dst)-start)%8 != 0 {
			dst = append(dst, 0)
		}
	}
	binary.LittleEndian.PutUint32(dst[start:], uint32(len(dst)-start))
	return dst
}

// RecordLen is the length of e's record for req, padded.
func RecordLen(e Entry, req Req) int {
	return len(AppendRecord(nil, e, req, false))
}
