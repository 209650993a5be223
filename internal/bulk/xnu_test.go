//go:build godu_xnu

package bulk

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/godu-sh/godu/internal/xnu"
	"golang.org/x/sys/unix"
)

// The darwin reader of this build (cgo: csrc/bulk_darwin.c; purego:
// gocore_getattrlistbulk.go) over the getattrlistbulk emulation, against
// what Linux's statx says of the same entries.

// xnuDir makes a directory of n entries of every type and of names from 1
// to 255 bytes, so that records of every length meet every buffer cut.
func xnuDir(t testing.TB, n int) string {
	dir := filepath.Join(t.TempDir(), "d")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("%d-%s", i, strings.Repeat("n", (i*37)%250))
		p := filepath.Join(dir, name)
		var err error
		switch i % 7 {
		case 0:
			err = os.Mkdir(p, 0o755)
		case 1:
			err = os.Symlink("target-"+name, p)
		case 2:
			err = unix.Mkfifo(p, 0o644)
		case 3:
			err = os.WriteFile(p, make([]byte, i*997), 0o644)
			if err == nil {
				err = os.Link(p, p+"-link")
			}
		default:
			err = os.WriteFile(p, make([]byte, i*131), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// xnuWant is what the darwin reader must return for each entry of dir:
// statx's numbers as darwin's attributes carry them (32-bit devices;
// directories one link, no apparent size).
func xnuWant(t testing.TB, dir string) map[string]Record {
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Record{}
	for _, e := range ents {
		var sx unix.Statx_t
		if err := unix.Statx(unix.AT_FDCWD, filepath.Join(dir, e.Name()), unix.AT_SYMLINK_NOFOLLOW, unix.STATX_ALL, &sx); err != nil {
			t.Fatal(err)
		}
		r := Record{Ino: sx.Ino, Dev: uint64(uint32(unix.Mkdev(sx.Dev_major, sx.Dev_minor))), Blocks: int64(sx.Blocks),
			Size: int64(sx.Size), Nlink: sx.Nlink, NameLen: uint32(len(e.Name())), Type: typeOfMode(uint32(sx.Mode))}
		if r.Type == Directory {
			r.Size, r.Nlink = 0, 1
		}
		want[e.Name()] = r
	}
	return want
}

// xnuRead reads dir whole through a Reader of recCap records and namesCap
// bytes of names, in mode, and returns the records by name and the sums.
func xnuRead(t testing.TB, dir string, recCap, namesCap int, mode Mode, foldDev uint64) (map[string]Record, Sum, error) {
	r := &Reader{recs: make([]Record, recCap), names: make([]byte, namesCap), dbuf: make([]byte, kernelBufSize)}
	var d Dir
	d.Open(unix.AT_FDCWD, dir, mode, foldDev)
	defer d.Close()
	got := map[string]Record{}
	var sum Sum
	for i := 0; ; i++ {
		b, err := r.Read(&d)
		for j := range b.Records {
			rec := b.Records[j]
			if rec.Type == Directory {
				// A directory's size and links are not the reader's
				// to report (the walk counts neither): the fallback's
				// fstatat has them, getattrlistbulk's request not.
				rec.Size, rec.Nlink = 0, 1
			}
			n := string(b.Name(&rec))
			if _, dup := got[n]; dup {
				t.Fatalf("%q returned twice", n)
			}
			rec.NameOff = 0
			got[n] = rec
		}
		sum.Blocks += b.Folded.Blocks
		sum.Size += b.Folded.Size
		sum.Count += b.Folded.Count
		if err != nil || !b.More {
			return got, sum, err
		}
		if i > 100000 {
			t.Fatal("the reader does not finish")
		}
	}
}

func checkRead(t *testing.T, what string, got, want map[string]Record) {
	t.Helper()
	if reflect.DeepEqual(got, want) {
		return
	}
	for n, w := range want {
		if g, ok := got[n]; !ok {
			t.Errorf("%s: %q missing", what, n)
		} else if g != w {
			t.Errorf("%s: %q = %+v, want %+v", what, n, g, w)
		}
	}
	for n := range got {
		if _, ok := want[n]; !ok {
			t.Errorf("%s: %q not in the directory", what, n)
		}
	}
	t.FailNow()
}

// recordLens are the lengths of the records the emulation packs for dir.
func recordLens(t *testing.T, dir string) (lo, hi int) {
	lo = 1 << 30
	for n, w := range xnuWant(t, dir) {
		ot := uint32(xnu.VREG)
		if w.Type == Directory {
			ot = xnu.VDIR
		}
		l := xnu.RecordLen(xnu.Entry{Name: []byte(n), ObjType: ot},
			xnu.Req{Common: goduReq.common, Dir: goduReq.dir, File: goduReq.file})
		lo, hi = min(lo, l), max(hi, l)
	}
	return lo, hi
}

// TestXnuReadMatchesStatx: every knob that changes how the kernel hands
// the directory over (records per call, buffer cuts at every byte,
// unpadded last records, EINTR) and every size of godu's own arrays give
// the same records.
func TestXnuReadMatchesStatx(t *testing.T) {
	dir := xnuDir(t, 200)
	want := xnuWant(t, dir)
	_, hi := recordLens(t, dir)
	type run struct {
		knobs            xnu.Knobs
		recCap, namesCap int
	}
	runs := []run{{xnu.Knobs{}, RecordsPerBatch, namesSize}}
	for _, k := range []int{1, 2, 3, 7, 64} {
		runs = append(runs, run{xnu.Knobs{MaxRecords: k}, RecordsPerBatch, namesSize})
	}
	for _, n := range []int{2, 3, 5} {
		runs = append(runs, run{xnu.Knobs{EINTREvery: n}, RecordsPerBatch, namesSize})
	}
	// Every buffer size from the longest record up to several records:
	// each cuts the directory at different record boundaries.
	for size := hi; size < hi+4*320; size += 3 {
		runs = append(runs, run{xnu.Knobs{BufSize: size, Unpadded: size%2 == 0}, RecordsPerBatch, namesSize})
	}
	// godu's arrays fill with records left in the kernel's buffer.
	for _, c := range []int{1, 2, 3, 5, 8, 13} {
		runs = append(runs, run{xnu.Knobs{}, c, namesSize})
		runs = append(runs, run{xnu.Knobs{MaxRecords: 5, EINTREvery: 4}, c, 300 + c*50})
	}
	for _, ru := range runs {
		restore := xnu.Set(ru.knobs)
		got, _, err := xnuRead(t, dir, ru.recCap, ru.namesCap, 0, 0)
		restore()
		what := fmt.Sprintf("%s: knobs %q, %d records, %d names", Variant, ru.knobs.String(), ru.recCap, ru.namesCap)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		checkRead(t, what, got, want)
	}
}

// TestXnuFold: folding adds exactly the plain one-link files.
func TestXnuFold(t *testing.T) {
	dir := xnuDir(t, 120)
	want := xnuWant(t, dir)
	dev := want["0-"].Dev
	var wsum Sum
	kept := map[string]Record{}
	for n, w := range want {
		if w.Type == Directory || w.Nlink > 1 {
			kept[n] = w
			continue
		}
		wsum.Blocks += w.Blocks
		if w.Type == Regular || w.Type == Symlink {
			wsum.Size += w.Size
		}
		wsum.Count++
	}
	for _, k := range []xnu.Knobs{{}, {MaxRecords: 3}, {BufSize: 1500}, {ENOTSUP: []string{"d"}}} {
		restore := xnu.Set(k)
		got, sum, err := xnuRead(t, dir, 4, namesSize, Fold, dev)
		restore()
		if err != nil {
			t.Fatal(err)
		}
		checkRead(t, "fold "+k.String(), got, kept)
		if sum != wsum {
			t.Errorf("fold %s: sum %+v, want %+v", k.String(), sum, wsum)
		}
	}
}

// TestXnuFallback: where the volume refuses getattrlistbulk (ENOTSUP or
// EINVAL on the first call), the readdir and fstatat reader takes over
// and returns the same records.
func TestXnuFallback(t *testing.T) {
	dir := xnuDir(t, 150)
	want := xnuWant(t, dir)
	for _, k := range []xnu.Knobs{{ENOTSUP: []string{"d"}}, {EINVAL: []string{"d"}}} {
		for _, c := range []int{3, RecordsPerBatch} {
			restore := xnu.Set(k)
			got, _, err := xnuRead(t, dir, c, namesSize, 0, 0)
			calls := xnu.Calls()
			restore()
			if err != nil {
				t.Fatalf("%s: %v", k.String(), err)
			}
			checkRead(t, k.String(), got, want)
			if calls != 1 {
				t.Errorf("%s: %d getattrlistbulk calls, want the one that failed", k.String(), calls)
			}
		}
	}
}

// TestXnuErrorRecords: an entry that vanishes between the listing and
// its examination comes back as an error record: its name with ENOENT,
// nothing folded, and the other entries whole.
func TestXnuErrorRecords(t *testing.T) {
	dir := xnuDir(t, 40)
	want := xnuWant(t, dir)
	gone := []string{"4-" + strings.Repeat("n", (4*37)%250), "12-" + strings.Repeat("n", (12*37)%250)}
	for _, n := range gone {
		// An error record has no device: the reader gives the
		// directory's.
		want[n] = Record{NameLen: uint32(len(n)), Dev: want["0-"].Dev + 1, Errno: int32(syscall.ENOENT)}
	}
	restore := xnu.Set(xnu.Knobs{Vanish: gone, MaxRecords: 4})
	got, _, err := xnuRead(t, dir, 5, namesSize, Fold, want["0-"].Dev+1)
	restore()
	if err != nil {
		t.Fatal(err)
	}
	checkRead(t, "vanish", got, want)
}

// TestXnuFlags: SF_DATALESS and SF_FIRMLINK reach the records, from
// getattrlistbulk and from the fallback's fstatat; a firmlink is never
// folded.
func TestXnuFlags(t *testing.T) {
	dir := xnuDir(t, 30)
	want := xnuWant(t, dir)
	dataless, firm := "5-"+strings.Repeat("n", 5*37), "7-"+strings.Repeat("n", 7*37%250)
	if want[dataless].Type != Regular || want[firm].Type != Directory {
		t.Fatal("fixture changed")
	}
	for _, k := range []xnu.Knobs{{}, {ENOTSUP: []string{"d"}}} {
		k.Dataless, k.Firmlink = []string{dataless}, []string{firm}
		restore := xnu.Set(k)
		got, _, err := xnuRead(t, dir, RecordsPerBatch, namesSize, 0, 0)
		restore()
		if err != nil {
			t.Fatal(err)
		}
		w := map[string]Record{}
		for n, r := range want {
			w[n] = r
		}
		r := w[dataless]
		r.Flags = FlagDataless
		w[dataless] = r
		r = w[firm]
		r.Flags = FlagFirmlink
		w[firm] = r
		checkRead(t, k.String(), got, w)
	}
}

// TestXnuOpenErrors: a directory that cannot be opened or is not one.
func TestXnuOpenErrors(t *testing.T) {
	dir := xnuDir(t, 4)
	for name, want := range map[string]error{"missing": syscall.ENOENT, "1-" + strings.Repeat("n", 37): syscall.ELOOP,
		"3-" + strings.Repeat("n", 111): syscall.ENOTDIR} {
		_, _, err := xnuRead(t, filepath.Join(dir, name), 8, 4096, 0, 0)
		if err != want && !(want == syscall.ELOOP && err == syscall.ENOTDIR) {
			t.Errorf("%s: %v, want %v", name, err, want)
		}
	}
}

// TestXnuTuneProcess: godu's process turns off the materialisation of
// dataless files.
func TestXnuTuneProcess(t *testing.T) {
	keepSched(t)
	TuneProcess()
	if last, n := xnu.Policy(); n == 0 || last != [3]int{3, 0, 1} {
		t.Errorf("setiopolicy_np: %v (%d calls), want IOPOL_TYPE_VFS_MATERIALIZE_DATALESS_FILES, "+
			"IOPOL_SCOPE_PROCESS, IOPOL_MATERIALIZE_DATALESS_FILES_OFF", last, n)
	}
}

// TestXnuEmulation: the call itself, as the format spec describes it:
// records parsed by both parsers into statx's numbers, in every request
// shape; the position left at the first entry not returned; 0 at the end;
// ERANGE when not one record fits; EINVAL and ENOTDIR.
func TestXnuEmulation(t *testing.T) {
	dir := xnuDir(t, 60)
	want := xnuWant(t, dir)
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	reqs := []attrReq{goduReq, exampleReq, {common: goduReq.common, dir: attrDirAllocSize | attrDirEntryCount,
		file: goduReq.file, options: fsoptPackInvalAttrs}}
	for _, req := range reqs {
		unix.Seek(fd, 0, 0)
		al := xnu.Attrlist{Bitmapcount: 5, Commonattr: req.common, Dirattr: req.dir, Fileattr: req.file}
		buf := make([]byte, 700)
		got := map[string]Record{}
		for {
			n, e := xnu.Getattrlistbulk(fd, &al, buf, uint64(req.options))
			if e != 0 {
				t.Fatalf("%+v: %v", req, e)
			}
			if n == 0 {
				break
			}
			recs, names, k := parsers(t, buf, n, req, 0)
			if k != n {
				t.Fatalf("%+v: record %d rejected", req, k)
			}
			for _, r := range recs {
				nm := string(names[r.NameOff : r.NameOff+r.NameLen])
				r.NameOff = 0
				if r.Type == Directory && req.dir&attrDirAllocSize == 0 {
					r.Blocks = want[nm].Blocks // not asked for
				}
				got[nm] = r
			}
		}
		checkRead(t, fmt.Sprintf("%+v", req), got, want)
	}
	al := xnu.Attrlist{Bitmapcount: 5, Commonattr: goduReq.common, Dirattr: goduReq.dir, Fileattr: goduReq.file}
	unix.Seek(fd, 0, 0)
	if _, e := xnu.Getattrlistbulk(fd, &al, make([]byte, 40), 0); e != unix.ERANGE {
		t.Errorf("tiny buffer: %v, want ERANGE", e)
	}
	bad := al
	bad.Commonattr &^= attrCmnName
	if _, e := xnu.Getattrlistbulk(fd, &bad, make([]byte, 4096), 0); e != unix.EINVAL {
		t.Errorf("no ATTR_CMN_NAME: %v, want EINVAL", e)
	}
	bad = al
	bad.Bitmapcount = 4
	if _, e := xnu.Getattrlistbulk(fd, &bad, make([]byte, 4096), 0); e != unix.EINVAL {
		t.Errorf("bitmapcount 4: %v, want EINVAL", e)
	}
	ffd, err := unix.Open(filepath.Join(dir, "3-"+strings.Repeat("n", 111)), unix.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(ffd)
	if _, e := xnu.Getattrlistbulk(ffd, &al, make([]byte, 4096), 0); e != unix.ENOTDIR {
		t.Errorf("a file: %v, want ENOTDIR", e)
	}
}
