package bulk

import (
	"bytes"
	"encoding/binary"
)

// The getattrlistbulk(2) record format, in Go. It mirrors csrc/attrparse.c
// (the two are tested against each other on every system) and is the
// parser of the purego darwin build. The constants are the SDK's
// sys/attr.h values.
const (
	attrCmnName          = 0x00000001
	attrCmnDevID         = 0x00000002
	attrCmnFsID          = 0x00000004
	attrCmnObjType       = 0x00000008
	attrCmnFlags         = 0x00040000
	attrCmnFileID        = 0x02000000
	attrCmnParentID      = 0x04000000
	attrCmnError         = 0x20000000
	attrCmnReturnedAttrs = 0x80000000

	attrDirLinkCount   = 0x01
	attrDirEntryCount  = 0x02
	attrDirMountStatus = 0x04
	attrDirAllocSize   = 0x08
	attrDirIOBlockSize = 0x10
	attrDirDataLength  = 0x20

	attrFileLinkCount     = 0x001
	attrFileTotalSize     = 0x002
	attrFileAllocSize     = 0x004
	attrFileIOBlockSize   = 0x008
	attrFileDataLength    = 0x200
	attrFileDataAllocSize = 0x400

	fsoptPackInvalAttrs = 0x8

	vnon, vreg, vdir, vlnk = 0, 1, 2, 5

	sfFirmlink = 0x00800000
	sfDataless = 0x40000000
)

// attrReq is what was asked of getattrlistbulk: attribute sets and options.
type attrReq struct {
	common, dir, file, options uint32
}

// godu's request: the same as csrc/attrparse.h's GODU_REQ_*.
var goduReq = attrReq{
	common: attrCmnReturnedAttrs | attrCmnName | attrCmnError | attrCmnDevID |
		attrCmnObjType | attrCmnFlags | attrCmnFileID,
	dir:  attrDirAllocSize,
	file: attrFileLinkCount | attrFileAllocSize | attrFileDataLength,
}

func cmnSize(bit uint32) uint32 {
	switch bit {
	case attrCmnName, attrCmnFsID, attrCmnFileID, attrCmnParentID:
		return 8
	case attrCmnDevID, attrCmnObjType, attrCmnFlags:
		return 4
	}
	return 0
}

func dirSize(bit uint32) uint32 {
	switch bit {
	case attrDirLinkCount, attrDirEntryCount, attrDirMountStatus, attrDirIOBlockSize:
		return 4
	case attrDirAllocSize, attrDirDataLength:
		return 8
	}
	return 0
}

func fileSize(bit uint32) uint32 {
	switch bit {
	case attrFileLinkCount, attrFileIOBlockSize:
		return 4
	case attrFileTotalSize, attrFileAllocSize, attrFileDataLength, attrFileDataAllocSize:
		return 8
	}
	return 0
}

// parseAttr parses the record at the start of buf. It returns the record
// (NameOff 0), its name (aliasing buf) and its length, or ok == false for
// a record that does not fit buf, lies about its length or name, or holds
// attributes that were not requested. Entries without a device get dirDev.
func parseAttr(buf []byte, req *attrReq, dirDev uint64) (rec Record, name []byte, n int, ok bool) {
	le := binary.LittleEndian
	if len(buf) < 24 {
		return rec, nil, 0, false
	}
	length := le.Uint32(buf)
	if length < 24 || uint64(length) > uint64(len(buf)) {
		return rec, nil, 0, false
	}
	buf = buf[:length]
	rcmn, rvol, rdir, rfile, rfork := le.Uint32(buf[4:]), le.Uint32(buf[8:]), le.Uint32(buf[12:]), le.Uint32(buf[16:]), le.Uint32(buf[20:])
	if rvol != 0 || rfork != 0 || rcmn&^(req.common|attrCmnReturnedAttrs) != 0 ||
		rdir&^req.dir != 0 || rfile&^req.file != 0 {
		return rec, nil, 0, false
	}
	inval := req.options&fsoptPackInvalAttrs != 0
	off := uint32(24)
	var errno, devid, objtype, flags, linkcount uint32
	var fileid, allocsize, datalength uint64
	var haveDev, haveType, haveName bool
	var nameAt uint32
	if (inval && req.common&attrCmnError != 0) || rcmn&attrCmnError != 0 {
		if off+4 > length {
			return rec, nil, 0, false
		}
		errno = le.Uint32(buf[off:])
		off += 4
	}
	if errno != 0 {
		inval = false // an error record holds only what it returns
	}
	lay := rcmn
	if inval {
		lay = req.common
	}
	lay &^= attrCmnError | attrCmnReturnedAttrs
	for bit := uint32(1); bit != 0 && lay != 0; bit <<= 1 {
		if lay&bit == 0 {
			continue
		}
		lay &^= bit
		sz := cmnSize(bit)
		if sz == 0 || off+sz > length {
			return rec, nil, 0, false
		}
		valid := rcmn&bit != 0
		switch bit {
		case attrCmnName:
			haveName, nameAt = valid, off
		case attrCmnDevID:
			haveDev, devid = valid, le.Uint32(buf[off:])
		case attrCmnObjType:
			haveType, objtype = valid, le.Uint32(buf[off:])
		case attrCmnFlags:
			flags = le.Uint32(buf[off:])
		case attrCmnFileID:
			fileid = le.Uint64(buf[off:])
		}
		off += (sz + 3) &^ 3
	}
	isDir, isFile := rdir != 0, rfile != 0
	if haveType {
		isDir, isFile = objtype == vdir, objtype != vdir
	}
	if (isDir && rfile != 0) || (!isDir && rdir != 0) {
		return rec, nil, 0, false
	}
	if isDir || isFile {
		rset, size := rfile, fileSize
		if isDir {
			rset, size = rdir, dirSize
		}
		dlay := rset
		if inval {
			dlay = req.file
			if isDir {
				dlay = req.dir
			}
		}
		for bit := uint32(1); bit != 0 && dlay != 0; bit <<= 1 {
			if dlay&bit == 0 {
				continue
			}
			dlay &^= bit
			sz := size(bit)
			if sz == 0 || off+sz > length {
				return rec, nil, 0, false
			}
			if rset&bit != 0 {
				switch {
				case isDir && bit == attrDirAllocSize, !isDir && bit == attrFileAllocSize:
					allocsize = le.Uint64(buf[off:])
				case !isDir && bit == attrFileLinkCount:
					linkcount = le.Uint32(buf[off:])
				case !isDir && bit == attrFileDataLength:
					datalength = le.Uint64(buf[off:])
				}
			}
			off += (sz + 3) &^ 3
		}
	}
	if !haveName {
		return rec, nil, 0, false
	}
	doff := int32(le.Uint32(buf[nameAt:]))
	nlen := le.Uint32(buf[nameAt+4:])
	if doff < 8 || nlen < 2 || uint64(nameAt)+uint64(doff)+uint64(nlen) > uint64(length) {
		return rec, nil, 0, false
	}
	nm := buf[nameAt+uint32(doff) : nameAt+uint32(doff)+nlen]
	end := bytes.IndexByte(nm, 0)
	if end <= 0 {
		return rec, nil, 0, false
	}
	name = nm[:end]
	rec.NameLen = uint32(end)
	rec.Ino = fileid
	rec.Dev = dirDev
	if haveDev {
		rec.Dev = uint64(devid)
	}
	rec.Errno = int32(errno)
	switch {
	case !haveType && isDir:
		rec.Type = Directory
	case !haveType:
		rec.Type = Unknown
	case objtype == vdir:
		rec.Type = Directory
	case objtype == vreg:
		rec.Type = Regular
	case objtype == vlnk:
		rec.Type = Symlink
	case objtype == vnon:
		rec.Type = Unknown
	default:
		rec.Type = Other
	}
	if rec.Errno == 0 {
		rec.Blocks = int64(allocsize/512) + int64(b2i(allocsize%512 != 0))
		if !isDir {
			rec.Size = int64(datalength)
			rec.Nlink = linkcount
		} else {
			rec.Nlink = 1
		}
		if flags&sfDataless != 0 {
			rec.Flags |= FlagDataless
		}
		if isDir && flags&sfFirmlink != 0 {
			rec.Flags |= FlagFirmlink
		}
	}
	return rec, name, int(length), true
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// parseAttrBuffer parses count records of buf into recs and a names arena,
// as csrc's godu_attr_parse_buffer does: the number parsed, or -1-i when
// record i is rejected.
func parseAttrBuffer(buf []byte, count int, req *attrReq, dirDev uint64) ([]Record, []byte, int) {
	var recs []Record
	var names []byte
	pos := 0
	for i := 0; i < count; i++ {
		rec, nm, n, ok := parseAttr(buf[pos:], req, dirDev)
		if !ok {
			return recs, names, -1 - i
		}
		rec.NameOff = uint32(len(names))
		names = append(append(names, nm...), 0)
		recs = append(recs, rec)
		pos += n
	}
	return recs, names, count
}
