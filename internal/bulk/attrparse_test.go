package bulk

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/godu-sh/godu/internal/xnu"
)

// entry is one directory entry as the builder lays it out.
type entry struct {
	name     []byte
	objtype  uint32 // vreg, vdir, vlnk, ...
	dev      uint32
	ino      uint64
	flags    uint32
	links    uint32
	alloc    uint64 // ATTR_FILE_ALLOCSIZE or ATTR_DIR_ALLOCSIZE
	datalen  uint64
	errno    uint32 // non-zero: an emulation error record
	dropCmn  uint32 // common attributes the file system did not return
	dropSect uint32 // directory or file attributes it did not return
}

// build lays e out as XNU's packer does for request req, with the one
// record builder of the repository (internal/xnu). With unpadded, the
// record ends right after the name's NUL, as the last record of a full
// buffer may.
func build(e entry, req attrReq, unpadded bool) []byte {
	return xnu.AppendRecord(nil, xnu.Entry{Name: e.name, ObjType: e.objtype, Dev: e.dev, Ino: e.ino,
		Flags: e.flags, Links: e.links, Alloc: e.alloc, DataLen: e.datalen, Errno: e.errno,
		DropCmn: e.dropCmn, DropSect: e.dropSect},
		xnu.Req{Common: req.common, Dir: req.dir, File: req.file, Options: req.options}, unpadded)
}

// expect is the Record both parsers must produce for e.
func expect(e entry, req attrReq, dirDev uint64) Record {
	r := Record{NameLen: uint32(len(e.name)), Dev: dirDev}
	if e.errno != 0 {
		r.Errno = int32(e.errno)
		return r
	}
	has := func(bit uint32) bool { return req.common&bit != 0 && e.dropCmn&bit == 0 }
	isDir := e.objtype == vdir
	sect := req.file
	if isDir {
		sect = req.dir
	}
	hasSect := func(bit uint32) bool { return sect&bit != 0 && e.dropSect&bit == 0 }
	if has(attrCmnDevID) {
		r.Dev = uint64(e.dev)
	}
	if has(attrCmnFileID) {
		r.Ino = e.ino
	}
	switch e.objtype {
	case vdir:
		r.Type = Directory
	case vreg:
		r.Type = Regular
	case vlnk:
		r.Type = Symlink
	default:
		r.Type = Other
	}
	alloc := isDir && hasSect(attrDirAllocSize) || !isDir && hasSect(attrFileAllocSize)
	if alloc {
		r.Blocks = int64((e.alloc + 511) / 512)
	}
	if isDir {
		r.Nlink = 1
	} else {
		if hasSect(attrFileLinkCount) {
			r.Nlink = e.links
		}
		if hasSect(attrFileDataLength) {
			r.Size = int64(e.datalen)
		}
	}
	if has(attrCmnFlags) {
		if e.flags&sfDataless != 0 {
			r.Flags |= FlagDataless
		}
		if isDir && e.flags&sfFirmlink != 0 {
			r.Flags |= FlagFirmlink
		}
	}
	return r
}

// The worked example's request.
var exampleReq = attrReq{
	common: attrCmnReturnedAttrs | attrCmnName | attrCmnError | attrCmnDevID | attrCmnObjType | attrCmnFileID,
	file:   attrFileLinkCount | attrFileAllocSize | attrFileDataLength,
}

func fixture(t testing.TB, name string) []byte {
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "getattrlistbulk", name))
	if err != nil {
		t.Fatal(err)
	}
	var hx strings.Builder
	for _, line := range strings.Split(string(b), "\n") {
		line, _, _ = strings.Cut(line, "#")
		hx.WriteString(strings.Join(strings.Fields(line), ""))
	}
	out, err := hex.DecodeString(hx.String())
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// parsers runs every parser of this build over buf and requires them to
// agree; it returns the Go parser's result.
func parsers(t testing.TB, buf []byte, count int, req attrReq, dirDev uint64) ([]Record, []byte, int) {
	t.Helper()
	recs, names, n := parseAttrBuffer(buf, count, &req, dirDev)
	if haveCParser {
		crecs, cnames, cn := cParseAttrBuffer(buf, count, &req, dirDev)
		if cn != n || !reflect.DeepEqual(crecs, recs) || !bytes.Equal(cnames, names) {
			t.Fatalf("C and Go parsers disagree on % x:\nC  %d %+v %q\nGo %d %+v %q", buf, cn, crecs, cnames, n, recs, names)
		}
	}
	return recs, names, n
}

func TestWorkedExample(t *testing.T) {
	a := entry{name: []byte("a.txt"), objtype: vreg, dev: 0x01000011, ino: 0x1234, links: 1, alloc: 4096, datalen: 5}
	sub := entry{name: []byte("sub"), objtype: vdir, dev: 0x01000011, ino: 0x1235}
	inval := exampleReq
	inval.options = fsoptPackInvalAttrs
	withCount := exampleReq
	withCount.dir = attrDirEntryCount
	cases := []struct {
		file string
		e    entry
		req  attrReq
	}{
		{"file-a.txt.hex", a, exampleReq},
		{"dir-sub.hex", sub, exampleReq},
		{"dir-sub-entrycount.hex", sub, withCount},
		{"file-a.txt-packinval.hex", a, inval},
		{"error-a.txt-eacces.hex", entry{name: []byte("a.txt"), errno: 13}, exampleReq},
	}
	for _, c := range cases {
		want := fixture(t, c.file)
		if got := build(c.e, c.req, false); !bytes.Equal(got, want) {
			t.Errorf("%s: builder gives\n% x\nspec says\n% x", c.file, got, want)
		}
		recs, names, n := parsers(t, want, 1, c.req, 77)
		if n != 1 {
			t.Fatalf("%s: rejected (%d)", c.file, n)
		}
		if w := expect(c.e, c.req, 77); recs[0] != w {
			t.Errorf("%s: parsed %+v, want %+v", c.file, recs[0], w)
		}
		if string(names) != string(c.e.name)+"\x00" {
			t.Errorf("%s: name %q", c.file, names)
		}
	}
	// The file record's ALLOCSIZE sits at offset 52: 4- but not 8-aligned.
	if binary.LittleEndian.Uint64(fixture(t, "file-a.txt.hex")[52:]) != 4096 {
		t.Fatal("fixture: ALLOCSIZE not at 52")
	}
}

// TestCorpus covers every shape the spec lists, in one buffer.
func TestCorpus(t *testing.T) {
	req := goduReq
	long := []byte(strings.Repeat("é", 127) + "x") // 255 bytes of UTF-8
	shapes := []entry{
		{name: []byte("a.txt"), objtype: vreg, dev: 9, ino: 1, links: 1, alloc: 4096, datalen: 5},      // ERROR hole
		{name: []byte("dir"), objtype: vdir, dev: 9, ino: 2, alloc: 0},                                 // no file fields
		{name: []byte("denied"), errno: 13},                                                            // error record
		{name: []byte("nodev"), objtype: vreg, ino: 3, links: 1, alloc: 513, dropCmn: attrCmnDevID},    // DEVID dropped
		{name: long, objtype: vreg, dev: 9, ino: 4, links: 2, alloc: 8192, datalen: 8000},              // 255-byte UTF-8
		{name: []byte("bad-\xff\xfe"), objtype: vlnk, dev: 9, ino: 5, links: 1, alloc: 0, datalen: 11}, // invalid UTF-8
		{name: []byte("evicted"), objtype: vreg, dev: 9, ino: 6, links: 1, datalen: 1 << 30, flags: sfDataless},
		{name: []byte("Users"), objtype: vdir, dev: 9, ino: 7, alloc: 1, flags: sfFirmlink},
		{name: []byte("noalloc"), objtype: vreg, dev: 9, ino: 8, links: 1, datalen: 3, dropSect: attrFileAllocSize},
		{name: []byte("fifo"), objtype: 7, dev: 9, ino: 9, links: 1},
		{name: []byte("last"), objtype: vreg, dev: 9, ino: 10, links: 1, alloc: 4096, datalen: 1},
	}
	for _, inval := range []uint32{0, fsoptPackInvalAttrs} {
		req.options = inval
		var buf []byte
		for i, e := range shapes {
			buf = append(buf, build(e, req, i == len(shapes)-1)...) // the last one unpadded
		}
		recs, names, n := parsers(t, buf, len(shapes), req, 42)
		if n != len(shapes) {
			t.Fatalf("inval=%d: parsed %d of %d", inval, n, len(shapes))
		}
		for i, e := range shapes {
			recs[i].NameOff = 0
			if w := expect(e, req, 42); recs[i] != w {
				t.Errorf("inval=%d %q: %+v, want %+v", inval, e.name, recs[i], w)
			}
		}
		if !bytes.Contains(names, long) || !bytes.Contains(names, []byte("bad-\xff\xfe\x00")) {
			t.Errorf("names lost: %q", names)
		}
	}
}

// TestRejects: a record that lies must be rejected, never read past.
func TestRejects(t *testing.T) {
	good := fixture(t, "file-a.txt.hex")
	mutate := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	le := binary.LittleEndian
	cases := map[string][]byte{
		"truncated":          good[:60],
		"shorter than head":  good[:20],
		"length past buffer": mutate(func(b []byte) []byte { le.PutUint32(b, 200); return b }),
		"length too small":   mutate(func(b []byte) []byte { le.PutUint32(b, 12); return b }),
		"length cuts fields": mutate(func(b []byte) []byte { le.PutUint32(b, 48); return b }),
		"name offset out":    mutate(func(b []byte) []byte { le.PutUint32(b[24:], 1000); return b }),
		"name offset back":   mutate(func(b []byte) []byte { le.PutUint32(b[24:], 0xfffffff0); return b }),
		"name length out":    mutate(func(b []byte) []byte { le.PutUint32(b[28:], 100); return b }),
		"name without NUL":   mutate(func(b []byte) []byte { copy(b[72:], "abcdefgh"); return b }),
		"empty name":         mutate(func(b []byte) []byte { b[72] = 0; return b }),
		"unrequested attr":   mutate(func(b []byte) []byte { le.PutUint32(b[4:], 0x8200000B|0x10); return b }),
		"volume attrs":       mutate(func(b []byte) []byte { le.PutUint32(b[8:], 1); return b }),
		"dir attrs on file":  mutate(func(b []byte) []byte { le.PutUint32(b[12:], 8); return b }),
	}
	req := exampleReq
	req.dir = attrDirAllocSize
	for name, buf := range cases {
		if _, _, n := parsers(t, buf, 1, req, 0); n != -1 {
			t.Errorf("%s: accepted (%d)", name, n)
		}
	}
	// Two records, the second lying: the first stays, the second is refused.
	two := append(append([]byte(nil), good...), cases["length past buffer"]...)
	if recs, _, n := parsers(t, two, 2, req, 0); n != -2 || len(recs) != 1 {
		t.Errorf("second record lying: n=%d, %d records", n, len(recs))
	}
}

func randomEntry(rng *rand.Rand) entry {
	n := 1 + rng.Intn(255)
	if rng.Intn(4) == 0 {
		n = 1 + rng.Intn(8)
	}
	name := make([]byte, n)
	for i := range name {
		for name[i] == 0 || name[i] == '/' {
			name[i] = byte(rng.Intn(256))
		}
	}
	e := entry{name: name, dev: rng.Uint32(), ino: rng.Uint64(), flags: rng.Uint32() & (sfDataless | sfFirmlink | 0x20)}
	switch rng.Intn(10) {
	case 0:
		e.errno = uint32(1 + rng.Intn(100))
		return e
	case 1, 2, 3:
		e.objtype = vdir
		e.alloc = uint64(rng.Intn(1 << 20))
	case 4:
		e.objtype = vlnk
	case 5:
		e.objtype = uint32(3 + rng.Intn(5)) // devices, sockets, fifos
	default:
		e.objtype = vreg
	}
	if e.objtype != vdir {
		e.links = uint32(1 + rng.Intn(3))
		e.alloc = rng.Uint64() >> uint(rng.Intn(64))
		e.datalen = rng.Uint64() >> uint(rng.Intn(64))
	}
	if rng.Intn(5) == 0 {
		e.dropCmn = []uint32{attrCmnDevID, attrCmnFileID, attrCmnFlags}[rng.Intn(3)]
	}
	if rng.Intn(5) == 0 {
		if e.objtype == vdir {
			e.dropSect = attrDirAllocSize
		} else {
			e.dropSect = []uint32{attrFileLinkCount, attrFileAllocSize, attrFileDataLength}[rng.Intn(3)]
		}
	}
	return e
}

// TestRandomDirectories: thousands of directories the builder makes, in
// every option, parsed by both parsers into exactly the expected records.
func TestRandomDirectories(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for d := 0; d < 3000; d++ {
		req := goduReq
		if rng.Intn(2) == 0 {
			req.options = fsoptPackInvalAttrs
		}
		entries := make([]entry, 1+rng.Intn(40))
		var buf []byte
		for i := range entries {
			entries[i] = randomEntry(rng)
			buf = append(buf, build(entries[i], req, i == len(entries)-1 && rng.Intn(2) == 0)...)
		}
		dirDev := rng.Uint64()
		recs, names, n := parsers(t, buf, len(entries), req, dirDev)
		if n != len(entries) {
			t.Fatalf("directory %d: parsed %d of %d", d, n, len(entries))
		}
		for i, e := range entries {
			got := recs[i]
			if string(names[got.NameOff:got.NameOff+got.NameLen]) != string(e.name) {
				t.Fatalf("directory %d entry %d: name %q, want %q", d, i, names[got.NameOff:got.NameOff+got.NameLen], e.name)
			}
			got.NameOff = 0
			if w := expect(e, req, dirDev); got != w {
				t.Fatalf("directory %d entry %d (%+v): %+v, want %+v", d, i, e, got, w)
			}
		}
	}
}

// FuzzAttrParse feeds arbitrary bytes to both parsers: neither may crash or
// read out of bounds (make asan runs the C one under AddressSanitizer),
// and they must agree.
func FuzzAttrParse(f *testing.F) {
	for _, name := range []string{"file-a.txt.hex", "dir-sub.hex", "file-a.txt-packinval.hex", "error-a.txt-eacces.hex"} {
		f.Add(fixture(f, name), uint8(1), false)
	}
	rng := rand.New(rand.NewSource(2))
	for i := 0; i < 20; i++ {
		var buf []byte
		for j := 0; j < 3; j++ {
			buf = append(buf, build(randomEntry(rng), goduReq, false)...)
		}
		f.Add(buf, uint8(3), false)
	}
	f.Fuzz(func(t *testing.T, buf []byte, count uint8, inval bool) {
		req := goduReq
		if inval {
			req.options = fsoptPackInvalAttrs
		}
		parsers(t, buf, int(count%8), req, 5)
	})
}

// TestConstantsAgree: the parser's constants are the packer's, which are
// the SDK's (FORMAT.md).
func TestConstantsAgree(t *testing.T) {
	pairs := [][2]uint32{
		{attrCmnName, xnu.AttrCmnName}, {attrCmnDevID, xnu.AttrCmnDevID}, {attrCmnFsID, xnu.AttrCmnFsID},
		{attrCmnObjType, xnu.AttrCmnObjType}, {attrCmnFlags, xnu.AttrCmnFlags}, {attrCmnFileID, xnu.AttrCmnFileID},
		{attrCmnParentID, xnu.AttrCmnParentID}, {attrCmnError, xnu.AttrCmnError},
		{attrCmnReturnedAttrs, xnu.AttrCmnReturnedAttrs}, {attrDirAllocSize, xnu.AttrDirAllocSize},
		{attrDirEntryCount, xnu.AttrDirEntryCount}, {attrFileLinkCount, xnu.AttrFileLinkCount},
		{attrFileAllocSize, xnu.AttrFileAllocSize}, {attrFileDataLength, xnu.AttrFileDataLength},
		{fsoptPackInvalAttrs, xnu.FsoptPackInvalAttrs}, {vdir, xnu.VDIR}, {vreg, xnu.VREG}, {vlnk, xnu.VLNK},
		{sfFirmlink, xnu.SFFirmlink}, {sfDataless, xnu.SFDataless},
	}
	for i, p := range pairs {
		if p[0] != p[1] {
			t.Errorf("constant %d: parser %#x, packer %#x", i, p[0], p[1])
		}
	}
}
