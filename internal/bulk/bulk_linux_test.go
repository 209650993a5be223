//go:build !godu_xnu

package bulk

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// core is one implementation of the kernel loop.
type core struct {
	read func(c *ctl, parent int, name *byte, r *Reader)
	stat func(c *ctl, dirfd int, recs []Record, names []byte)
}

// cores are the implementations of this build: the build's own, and the
// Go reader it is compared with (the same one in the purego build).
var cores = map[string]core{Variant: {coreRead, coreStat}, "go": {goRead, goStat}}

// readAll reads the directory at path with co, in mode (folding files on
// foldDev), and returns its records by name and what was folded. With
// split, the names after the first batch are listed by one Reader and
// examined by another, as the walk does for huge directories, in parts of
// 7 records each examined in place and their sums added, as workers
// sharing a batch examine it.
func readAll(t testing.TB, co core, path string, mode Mode, foldDev uint64, split bool) (map[string]Record, Sum) {
	r, r2 := NewReader(), NewReader()
	var d Dir
	d.Open(unix.AT_FDCWD, path, mode, foldDev)
	defer d.Close()
	recs := map[string]Record{}
	var sum Sum // Blocks, Size and Count only
	for first := true; ; first = false {
		d.c.recCap, d.c.namesCap, d.c.dbufCap = uint32(len(r.recs)), uint32(len(r.names)), uint32(len(r.dbuf))
		var name *byte
		if d.c.fd < 0 {
			name = r.cname(d.name)
		}
		co.read(&d.c, d.parent, name, r)
		b, err := r.batch(&d)
		if err != nil {
			t.Fatalf("reading %s: %v", path, err)
		}
		if split && !first {
			b = r2.Adopt(r, b)
			var kept []Record
			var folded Sum
			for lo := 0; lo < len(b.Records); lo += 7 {
				part := b.Records[lo:min(len(b.Records), lo+7)]
				c := ctl{flags: uint32(mode), foldDev: foldDev, nrecs: uint32(len(part))}
				co.stat(&c, d.Fd(), part, b.names)
				kept = append(kept, part[:c.nrecs]...)
				if lo == 0 {
					folded = c.sum()
				} else {
					folded.Add(c.sum())
				}
			}
			b = Batch{Records: kept, Folded: folded, More: b.More, names: b.names}
		}
		for i := range b.Records {
			n := string(b.Name(&b.Records[i]))
			if _, dup := recs[n]; dup {
				t.Fatalf("%q returned twice", n)
			}
			rec := b.Records[i]
			rec.NameOff = 0
			recs[n] = rec
		}
		sum.Blocks += b.Folded.Blocks
		sum.Size += b.Folded.Size
		sum.Count += b.Folded.Count
		if !b.More {
			return recs, sum
		}
		if split && first {
			d.SetMode(mode | NamesOnly)
		}
	}
}

// makeDir fills dir with n files of varied sizes and shapes.
func makeDir(t testing.TB, dir string, n int) {
	for i := 0; i < n; i++ {
		p := filepath.Join(dir, fmt.Sprintf("file-%05d", i))
		if err := os.WriteFile(p, make([]byte, (i*37)%9000), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	os.Symlink("file-00001", filepath.Join(dir, "sym"))
	os.Link(filepath.Join(dir, "file-00002"), filepath.Join(dir, "hard"))
	syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644)
	os.WriteFile(filepath.Join(dir, strings.Repeat("n", 255)), []byte("long"), 0o644)
	os.WriteFile(filepath.Join(dir, "bad-\xff-utf8\nname"), []byte("x"), 0o644)
}

// want is the directory as os.ReadDir and lstat see it.
func want(t testing.TB, dir string) map[string]Record {
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]Record{}
	for _, e := range ents {
		var st unix.Stat_t
		if err := unix.Lstat(filepath.Join(dir, e.Name()), &st); err != nil {
			t.Fatal(err)
		}
		m[e.Name()] = Record{Ino: st.Ino, Dev: st.Dev, Blocks: st.Blocks, Size: st.Size,
			Nlink: uint32(st.Nlink), NameLen: uint32(len(e.Name())), Type: typeOfMode(st.Mode)}
	}
	return m
}

func TestReadMatchesLstat(t *testing.T) {
	dir := t.TempDir()
	makeDir(t, dir, 3*RecordsPerBatch+17)
	w := want(t, dir)
	for name, core := range cores {
		for _, split := range []bool{false, true} {
			got, sum := readAll(t, core, dir, 0, 0, split)
			if sum != (Sum{}) {
				t.Errorf("%s: folded %+v without Fold", name, sum)
			}
			if len(got) != len(w) {
				t.Fatalf("%s split=%v: %d entries, want %d", name, split, len(got), len(w))
			}
			for n, wr := range w {
				if got[n] != wr {
					t.Errorf("%s split=%v: %q = %+v, want %+v", name, split, n, got[n], wr)
				}
			}
		}
	}
}

func TestFold(t *testing.T) {
	dir := t.TempDir()
	makeDir(t, dir, 2*RecordsPerBatch)
	w := want(t, dir)
	var dev uint64
	var wantSum Sum
	wantKept := map[string]bool{}
	for n, r := range w {
		dev = r.Dev
		if r.Type == Directory || r.Nlink > 1 {
			wantKept[n] = true
			continue
		}
		wantSum.Blocks += r.Blocks
		if r.Type == Regular || r.Type == Symlink {
			wantSum.Size += r.Size
		}
		wantSum.Count++
	}
	for name, core := range cores {
		for _, split := range []bool{false, true} {
			got, sum := readAll(t, core, dir, Fold, dev, split)
			if sum != wantSum {
				t.Errorf("%s split=%v: folded %+v, want %+v", name, split, sum, wantSum)
			}
			if len(got) != len(wantKept) {
				t.Errorf("%s split=%v: kept %d records, want %d", name, split, len(got), len(wantKept))
			}
			for n := range got {
				if !wantKept[n] {
					t.Errorf("%s: %q not folded", name, n)
				}
			}
		}
	}
	// Files on another device than foldDev are never folded.
	got, sum := readAll(t, cores[Variant], dir, Fold, dev+1, false)
	if sum.Count != 0 || len(got) != len(w) {
		t.Errorf("foldDev mismatch: folded %d, kept %d of %d", sum.Count, len(got), len(w))
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "file"), nil, 0o644)
	os.Symlink(".", filepath.Join(dir, "link"))
	for name, wantErr := range map[string]error{"missing": unix.ENOENT, "file": unix.ENOTDIR, "link": unix.ENOTDIR} {
		r := NewReader()
		var d Dir
		pfd, _ := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
		d.Open(pfd, name, Fold, 0)
		_, err := r.Read(&d)
		if err != wantErr {
			t.Errorf("%s: %v, want %v", name, err, wantErr)
		}
		if d.Fd() != -1 {
			t.Errorf("%s: fd %d after a failed open", name, d.Fd())
		}
		unix.Close(pfd)
	}
}

func TestLstat(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f"), make([]byte, 5000), 0o644)
	os.Symlink("f", filepath.Join(dir, "l"))
	w := want(t, dir)
	for _, n := range []string{"f", "l"} {
		rec, err := Lstat(unix.AT_FDCWD, filepath.Join(dir, n), 0)
		if err != nil {
			t.Fatal(err)
		}
		rec.NameLen = w[n].NameLen
		if rec != w[n] {
			t.Errorf("Lstat %s = %+v, want %+v", n, rec, w[n])
		}
	}
	rec, err := Lstat(unix.AT_FDCWD, filepath.Join(dir, "l"), Follow)
	if err != nil || rec.Type != Regular || rec.Ino != w["f"].Ino {
		t.Errorf("Lstat following l = %+v, %v; want f", rec, err)
	}
	if _, err := Lstat(unix.AT_FDCWD, filepath.Join(dir, "none"), 0); err != unix.ENOENT {
		t.Errorf("Lstat of a missing file: %v", err)
	}
}

// BenchmarkRead reads one directory of 10,000 files per iteration, in
// du's summary mode: the build's core, the Go reader through x/sys, and
// the naive os.ReadDir plus one os.Lstat per entry.
func BenchmarkRead(b *testing.B) {
	dir := b.TempDir()
	const n = 10000
	makeDir(b, dir, n)
	var dev uint64
	for _, r := range want(b, dir) {
		dev = r.Dev
	}
	for name, core := range cores {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				readAll(b, core, dir, Fold, dev, false)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/entry")
		})
	}
	b.Run("os.ReadDir+Lstat", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			ents, err := os.ReadDir(dir)
			if err != nil {
				b.Fatal(err)
			}
			var blocks int64
			for _, e := range ents {
				fi, err := os.Lstat(filepath.Join(dir, e.Name()))
				if err != nil {
					b.Fatal(err)
				}
				blocks += fi.Sys().(*syscall.Stat_t).Blocks
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/entry")
	})
}

// An entry listed and gone before it is examined (the split path) comes
// back as an error record that still carries its name, in every core.
func TestStatKeepsNameOnError(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a", "gone", "z"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, co := range cores {
		r := NewReader()
		var d Dir
		d.Open(unix.AT_FDCWD, dir, NamesOnly, 0)
		d.c.recCap, d.c.namesCap, d.c.dbufCap = uint32(len(r.recs)), uint32(len(r.names)), uint32(len(r.dbuf))
		co.read(&d.c, d.parent, r.cname(d.name), r)
		b, err := r.batch(&d)
		if err != nil || len(b.Records) != 3 {
			t.Fatalf("%s: listed %d records, %v", name, len(b.Records), err)
		}
		gone := filepath.Join(dir, "gone")
		if err := os.Remove(gone); err != nil {
			t.Fatal(err)
		}
		c := ctl{nrecs: uint32(len(b.Records))}
		co.stat(&c, d.Fd(), b.Records, b.names)
		got := map[string]int32{}
		for _, rec := range b.Records[:c.nrecs] {
			got[string(b.Name(&rec))] = rec.Errno
		}
		if len(got) != 3 || got["gone"] != int32(unix.ENOENT) || got["a"] != 0 || got["z"] != 0 {
			t.Errorf("%s: examined %v, want a and z without error and gone with ENOENT", name, got)
		}
		d.Close()
		os.WriteFile(gone, nil, 0o644)
	}
}
