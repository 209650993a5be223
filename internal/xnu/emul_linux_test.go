package xnu

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestParseKnobs(t *testing.T) {
	s := "max=3,buf=700,eintr=2,unpadded,enotsup=a:b,einval=c,vanish=d,dataless=e:f,firmlink=g"
	k, err := ParseKnobs(s)
	if err != nil {
		t.Fatal(err)
	}
	want := Knobs{MaxRecords: 3, BufSize: 700, EINTREvery: 2, Unpadded: true, ENOTSUP: []string{"a", "b"},
		EINVAL: []string{"c"}, Vanish: []string{"d"}, Dataless: []string{"e", "f"}, Firmlink: []string{"g"}}
	if !reflect.DeepEqual(k, want) {
		t.Errorf("ParseKnobs(%q) = %+v, want %+v", s, k, want)
	}
	if k.String() != s {
		t.Errorf("String() = %q, want %q", k.String(), s)
	}
	for _, bad := range []string{"max=x", "nope", "buf="} {
		if _, err := ParseKnobs(bad); err == nil {
			t.Errorf("ParseKnobs(%q) accepted", bad)
		}
	}
}

// TestReadDirent: darwin's struct dirent records, every name of the
// directory with "." and "..", each record 8-aligned.
func TestReadDirent(t *testing.T) {
	dir := t.TempDir()
	var want []string
	for i := 0; i < 300; i++ {
		n := fmt.Sprintf("%d-%s", i, strings.Repeat("x", i%40))
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		want = append(want, n)
	}
	want = append(want, ".", "..")
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	var got []string
	buf := make([]byte, 1024)
	for {
		n, err := ReadDirent(fd, buf)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		for off := 0; off < n; {
			reclen := int(binary.LittleEndian.Uint16(buf[off+16:]))
			namlen := int(binary.LittleEndian.Uint16(buf[off+18:]))
			if reclen%8 != 0 || 21+namlen+1 > reclen || buf[off+21+namlen] != 0 {
				t.Fatalf("record at %d: reclen %d namlen %d", off, reclen, namlen)
			}
			got = append(got, string(buf[off+21:off+21+namlen]))
			off += reclen
		}
	}
	sort.Strings(got)
	sort.Strings(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("names %q, want %q", got, want)
	}
}

// TestFstatat: darwin's stat of a file: its numbers, st_flags from the
// knobs, a link count clamped as darwin's 16-bit st_nlink.
func TestFstatat(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, make([]byte, 5000), 0o644); err != nil {
		t.Fatal(err)
	}
	defer Set(Knobs{Dataless: []string{"f"}})()
	st, e := Fstatat(unix.AT_FDCWD, []byte(p), unix.AT_SYMLINK_NOFOLLOW)
	if e != 0 {
		t.Fatal(e)
	}
	var ls unix.Stat_t
	if err := unix.Lstat(p, &ls); err != nil {
		t.Fatal(err)
	}
	if st.Ino != ls.Ino || st.Size != 5000 || st.Blocks != ls.Blocks || st.Nlink != 1 ||
		uint32(st.Dev) != uint32(ls.Dev) || st.Flags != SFDataless || st.Mode != uint16(ls.Mode) {
		t.Errorf("Fstatat = %+v, lstat %+v", st, ls)
	}
	if _, e := Fstatat(unix.AT_FDCWD, []byte(filepath.Join(dir, "missing")), 0); e != unix.ENOENT {
		t.Errorf("missing: %v", e)
	}
}
