package bulk

import (
	"encoding/binary"
	"math"
	"testing"
	"time"
	"unicode/utf16"
)

func TestWinType(t *testing.T) {
	for _, c := range []struct {
		attrs, tag uint32
		want       Type
	}{
		{0x20, 0, Regular},                  // archive
		{0x80, 0, Regular},                  // normal
		{0x10, 0, Directory},                // directory
		{0x10 | 0x400, 0xA000000C, Symlink}, // directory symlink
		{0x400, 0xA000000C, Symlink},        // file symlink
		{0x10 | 0x400, 0xA0000003, Symlink}, // junction, mount point
		{0x400, 0x80000013, Regular},        // deduplicated file: not a link
		{0x10 | 0x400, 0x9000601A, Directory},
		{0x40, 0, Other}, // device
	} {
		if got := winType(c.attrs, c.tag); got != c.want {
			t.Errorf("winType(%#x, %#x) = %d, want %d", c.attrs, c.tag, got, c.want)
		}
	}
}

func TestFiletimeUnix(t *testing.T) {
	for _, want := range []time.Time{
		time.Unix(0, 0),
		time.Date(2024, 2, 29, 12, 34, 56, 789012300, time.UTC),
		time.Date(1969, 12, 31, 23, 59, 59, 100, time.UTC), // before 1970
		time.Date(1601, 1, 1, 0, 0, 0, 0, time.UTC),        // FILETIME 0
	} {
		ft := want.Unix()*1e7 + int64(want.Nanosecond()/100) + filetimeEpoch
		sec, nsec := filetimeUnix(ft)
		if got := time.Unix(sec, nsec).UTC(); !got.Equal(want) || nsec < 0 || nsec >= 1e9 {
			t.Errorf("filetimeUnix(%d) = %d, %d (%v), want %v", ft, sec, nsec, got, want)
		}
	}
}

func TestWinBlocks(t *testing.T) {
	for alloc, want := range map[int64]int64{0: 0, -1: 0, 1: 1, 511: 1, 512: 1, 513: 2, 4096: 8, 1 << 40: 1 << 31} {
		if got := winBlocks(alloc); got != want {
			t.Errorf("winBlocks(%d) = %d, want %d", alloc, got, want)
		}
	}
}

// winDirRecord encodes one FILE_ID_BOTH_DIR_INFO record as Windows lays it
// out, padded to 8 bytes.
func winDirRecord(e winDirEntry, name string, last bool) []byte {
	u := utf16.Encode([]rune(name))
	b := make([]byte, (widName+2*len(u)+7)&^7)
	le := binary.LittleEndian
	if !last {
		le.PutUint32(b[widNext:], uint32(len(b)))
	}
	le.PutUint64(b[widAtime:], uint64(e.atime))
	le.PutUint64(b[widMtime:], uint64(e.mtime))
	le.PutUint64(b[widCtime:], uint64(e.ctime))
	le.PutUint64(b[widSize:], uint64(e.size))
	le.PutUint64(b[widAlloc:], uint64(e.alloc))
	le.PutUint32(b[widAttrs:], e.attrs)
	le.PutUint32(b[widNameLen:], uint32(2*len(u)))
	le.PutUint32(b[widEaSize:], e.tag)
	le.PutUint64(b[widFileID:], e.fileID)
	for i, c := range u {
		le.PutUint16(b[widName+2*i:], c)
	}
	return b
}

func TestParseWinDirEntry(t *testing.T) {
	ft := int64(filetimeEpoch + 1700000000*1e7 + 5)
	entries := []struct {
		e    winDirEntry
		name string
		want Record
	}{
		{winDirEntry{atime: ft, mtime: ft + 1e7, ctime: ft + 2e7, size: 1000, alloc: 4096, attrs: 0x20, fileID: 7}, "a.txt",
			Record{Ino: 7, Dev: 9, Blocks: 8, Size: 1000, Nlink: 1, Type: Regular, Tsec: 1700000001, Tnsec: 500}},
		{winDirEntry{mtime: ft, attrs: 0x10, fileID: 1 << 40}, "dir €",
			Record{Ino: 1 << 40, Dev: 9, Nlink: 1, Type: Directory, Tsec: 1700000000, Tnsec: 500}},
		{winDirEntry{mtime: ft, attrs: 0x400, tag: 0xA000000C, fileID: 3}, "link😀",
			Record{Ino: 3, Dev: 9, Nlink: 1, Type: Symlink, Tsec: 1700000000, Tnsec: 500}},
	}
	var buf []byte
	for i, c := range entries {
		buf = append(buf, winDirRecord(c.e, c.name, i == len(entries)-1)...)
	}
	off := 0
	for i, c := range entries {
		e, ok := parseWinDirEntry(buf[off:])
		if !ok {
			t.Fatalf("record %d: not parsed", i)
		}
		if got := string(appendWTF8(nil, e.name)); got != c.name {
			t.Errorf("record %d: name %q, want %q", i, got, c.name)
		}
		var r Record
		winRecord(&e, 9, uint32(MTime), &r)
		if r != c.want {
			t.Errorf("record %d: %+v, want %+v", i, r, c.want)
		}
		if e.next == 0 {
			if i != len(entries)-1 {
				t.Fatalf("record %d: last too early", i)
			}
			break
		}
		off += int(e.next)
	}
	// Truncated or inconsistent buffers are refused, not read past.
	for _, b := range [][]byte{buf[:widName-1], buf[:widName+3]} {
		if _, ok := parseWinDirEntry(b); ok {
			t.Errorf("parsed a truncated record of %d bytes", len(b))
		}
	}
	bad := append([]byte(nil), buf...)
	binary.LittleEndian.PutUint32(bad[widNext:], math.MaxUint32)
	if _, ok := parseWinDirEntry(bad); ok {
		t.Error("parsed a record whose next offset leaves the buffer")
	}
}

func TestAppendWTF8(t *testing.T) {
	for _, s := range []string{"", "plain", "é", "€uro", "😀 pair", "日本語"} {
		u := utf16.Encode([]rune(s))
		b := make([]byte, 2*len(u))
		for i, c := range u {
			binary.LittleEndian.PutUint16(b[2*i:], c)
		}
		if got := string(appendWTF8(nil, b)); got != s {
			t.Errorf("appendWTF8(%q) = %q", s, got)
		}
	}
	// An unpaired surrogate keeps its own three bytes, so the name opens
	// again (Go's UTF16FromString encodes them back).
	b := []byte{'a', 0, 0x00, 0xd8, 'b', 0}
	if got, want := string(appendWTF8(nil, b)), "a\xed\xa0\x80b"; got != want {
		t.Errorf("unpaired surrogate: %q, want %q", got, want)
	}
}
