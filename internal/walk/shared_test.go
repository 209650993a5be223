//go:build linux

package walk

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/godu-sh/godu/internal/bulk"
)

// TestSharedBatchAsOneStat: a listed batch examined by two workers a
// chunk at a time (sharedBatch) comes out as one Stat of the whole batch
// does: the same records kept, by name and with the same attributes, and
// the same sums, however late the second worker starts (at once, in the
// middle, after the last chunk was taken, or never), in each mode the
// walk lists in.
func TestSharedBatchAsOneStat(t *testing.T) {
	if !bulk.CanSplit {
		t.Skip("this core lists no names apart from examining them")
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewSource(7))
	other := t.TempDir()
	for i := 0; i < 700; i++ {
		p := filepath.Join(dir, fmt.Sprintf("e%03d-%s", i, string(rune('a'+rng.Intn(26)))))
		switch rng.Intn(10) {
		case 0:
			os.Mkdir(p, 0o755)
		case 1:
			os.Symlink("target", p)
		case 2: // a second link outside: kept, not folded
			os.WriteFile(p, make([]byte, rng.Intn(9000)), 0o644)
			os.Link(p, filepath.Join(other, filepath.Base(p)))
		default:
			os.WriteFile(p, make([]byte, rng.Intn(70000)), 0o644)
		}
	}
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		t.Fatal(err)
	}
	dev := uint64(st.Dev)
	// list opens dir and lists its first batch (all 700 names) in mode.
	list := func(mode bulk.Mode) (*bulk.Reader, *bulk.Dir, bulk.Batch) {
		rd := bulk.NewReader()
		d := new(bulk.Dir)
		d.Open(unix.AT_FDCWD, dir, mode|bulk.NamesOnly, dev)
		b, err := rd.Read(d)
		if err != nil || b.More || len(b.Records) != 700 {
			t.Fatalf("listed %d records, more %v, %v", len(b.Records), b.More, err)
		}
		return rd, d, b
	}
	type seen struct {
		typ         bulk.Type
		blocks, sz  int64
		ino         uint64
		nlink       uint32
		errno, tsec int64
	}
	summary := func(b bulk.Batch) (map[string]seen, bulk.Sum) {
		m := map[string]seen{}
		for i := range b.Records {
			r := &b.Records[i]
			m[string(b.Name(r))] = seen{r.Type, r.Blocks, r.Size, r.Ino, r.Nlink, int64(r.Errno), r.Tsec}
		}
		return m, b.Folded
	}
	for _, mode := range []bulk.Mode{bulk.Fold, 0, bulk.Fold | bulk.MTime} {
		rd, d, b := list(mode)
		wantRecs, wantSum := summary(rd.Stat(d.Fd(), dev, b, mode))
		d.Close()
		if len(wantRecs) == 0 || mode&bulk.Fold != 0 && wantSum.Count == 0 {
			t.Fatalf("mode %#x: nothing kept or nothing folded: the test sees nothing", mode)
		}
		for _, delay := range []time.Duration{-1, 0, 30 * time.Microsecond, 300 * time.Microsecond, 20 * time.Millisecond} {
			rd, d, b := list(mode)
			s := newShared(b, d.Fd(), dev, mode)
			finished := make(chan struct{})
			if delay >= 0 {
				go func() {
					time.Sleep(delay)
					s.examine(bulk.NewReader())
					close(finished)
				}()
			} else {
				close(finished)
			}
			s.examine(rd)
			out := s.result()
			gotRecs, gotSum := summary(out)
			<-finished
			d.Close()
			if gotSum != wantSum {
				t.Errorf("mode %#x, second worker after %v: sums %+v, want %+v", mode, delay, gotSum, wantSum)
			}
			if len(gotRecs) != len(wantRecs) {
				t.Errorf("mode %#x, after %v: %d records kept, want %d", mode, delay, len(gotRecs), len(wantRecs))
			}
			var diff []string
			for n, w := range wantRecs {
				if g, ok := gotRecs[n]; !ok || g != w {
					diff = append(diff, n)
				}
			}
			sort.Strings(diff)
			if len(diff) > 0 {
				t.Errorf("mode %#x, after %v: records differ: %v", mode, delay, diff[:min(5, len(diff))])
			}
		}
	}
}

// TestHugeDirectoryShared compares walks of a directory of several
// batches, whose batches after the first are listed by one worker and
// examined by others sharing them a chunk at a time (readRest, the
// shareBoard), with the walk of one worker: same totals at every reported
// node, same counts, with subdirectories, hard links inside and outside
// and symlinks among the files.
func TestHugeDirectoryShared(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "huge")
	os.Mkdir(dir, 0o755)
	other := filepath.Join(root, "other")
	os.Mkdir(other, 0o755)
	rng := rand.New(rand.NewSource(11))
	var files []string
	for i := 0; i < 4500; i++ {
		p := filepath.Join(dir, fmt.Sprintf("n%04d", i))
		switch r := rng.Intn(40); {
		case r == 0:
			os.Mkdir(p, 0o755)
			os.WriteFile(filepath.Join(p, "f"), make([]byte, rng.Intn(20000)), 0o644)
		case r == 1:
			os.Symlink("n0000", p)
		case r == 2 && len(files) > 0: // a second link inside
			os.Link(files[rng.Intn(len(files))], p)
		case r == 3: // a second link outside
			os.WriteFile(p, make([]byte, rng.Intn(9000)), 0o644)
			os.Link(p, filepath.Join(other, filepath.Base(p)))
		default:
			os.WriteFile(p, make([]byte, rng.Intn(30000)), 0o644)
			files = append(files, p)
		}
	}
	for _, opts := range []Options{{MaxDepth: -1}, {MaxDepth: 0}, {MaxDepth: -1, CountLinks: true}, {MaxDepth: 1, Time: bulk.MTime}} {
		one := opts
		one.Jobs = 1
		want, wantStats := report(t, one, dir)
		for _, jobs := range []int{2, 3, 8} {
			o := opts
			o.Jobs = jobs
			for range 3 {
				got, stats := report(t, o, dir)
				sameReport(t, fmt.Sprintf("%+v", o), got, want, stats, wantStats)
			}
		}
	}
}

// TestSharedBatchEmpty: a shared batch of no records is done at once.
func TestSharedBatchEmpty(t *testing.T) {
	s := newShared(bulk.Batch{}, -1, 0, bulk.Fold)
	s.examine(bulk.NewReader())
	got := make(chan bulk.Batch, 1)
	go func() { got <- s.result() }()
	select {
	case b := <-got:
		if len(b.Records) != 0 || b.Folded.Count != 0 || b.Folded.Blocks != 0 {
			t.Errorf("an empty shared batch came out as %+v", b)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the result of an empty shared batch never came")
	}
}
