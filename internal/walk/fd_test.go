//go:build unix

package walk

import (
	"testing"

	"golang.org/x/sys/unix"
)

// A descriptor's lifetime: held open while claims remain, never shed while
// in use, reopened by its first use after being shed, closed by the last
// release.
func TestDescriptorLifetime(t *testing.T) {
	dir := t.TempDir()
	open := func() (int, error) { return unix.Open(dir, dirFlags, 0) }
	isOpen := func(fd int) bool { _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); return err != unix.EBADF }

	var f descriptor
	fd, err := open()
	if err != nil {
		t.Fatal(err)
	}
	f.OpenFd(fd, 0, 0)
	f.hold(3) // two subdirectories and the directory's own visit
	reopens := 0
	reopen := func() (int, error) { reopens++; return open() }

	f.release() // the visit ends
	if f.Fd() != fd || !isOpen(fd) {
		t.Fatal("closed with claims left")
	}
	got, err := f.use(reopen, 0, 0)
	if err != nil || got != fd || reopens != 0 {
		t.Fatalf("use: %d, %v, %d reopens; want %d, nil, 0", got, err, reopens, fd)
	}
	if closed, open := f.shed(); closed || !open {
		t.Fatalf("shed while in use: closed %v, open %v", closed, open)
	}
	f.done()
	f.release()
	if closed, open := f.shed(); !closed || open || f.Fd() >= 0 || isOpen(fd) {
		t.Fatal("not shed once unused")
	}
	if closed, open := f.shed(); closed || open {
		t.Fatalf("shed twice: closed %v, open %v", closed, open)
	}
	got, err = f.use(reopen, 0, 0)
	if err != nil || got < 0 || reopens != 1 {
		t.Fatalf("use after shedding: %d, %v, %d reopens; want a descriptor, nil, 1", got, err, reopens)
	}
	f.done()
	f.release() // the last claim
	if f.Fd() >= 0 || isOpen(got) {
		t.Fatal("open after the last release")
	}
}

// TestOperandsHopeless: out of descriptors, an operand gets fewTries, and
// once one went unopened the Walker's next operands get none, until an
// operand opens; a directory below an operand keeps its walk's own
// patience (scarceTries), whatever the operands met.
func TestOperandsHopeless(t *testing.T) {
	w := New(Options{})
	tries := func(d *dir, opens bool) int {
		sc := &scan{w: w}
		n := 0
		sc.openScarce(d, func(int) (bool, error) {
			n++
			if opens {
				return true, nil
			}
			return false, unix.EMFILE
		})
		return n
	}
	operand := &dir{fd: new(descriptor)}
	for i, c := range []struct {
		opens bool
		want  int
	}{
		{false, fewTries + 1}, // the first operand short of descriptors
		{false, 1},            // hopeless: one try
		{false, 1},
		{true, 1}, // one opens: hope again
		{false, fewTries + 1},
		{false, 1},
	} {
		if got := tries(operand, c.opens); got != c.want {
			t.Errorf("operand %d: %d tries, want %d", i, got, c.want)
		}
	}
	if !w.operandsHopeless.Load() {
		t.Errorf("the Walker is not hopeless after its last operand went unopened")
	}
	sub := &dir{parent: operand, fd: new(descriptor)}
	if got := tries(sub, false); got != scarceTries+1 {
		t.Errorf("a directory below an operand: %d tries, want %d (its walk's own patience)", got, scarceTries+1)
	}
}

// TestPathFirstEnds: once a directory had to be opened by its path, the
// next go by path first only while their parents' descriptors are shed,
// and even then one in pathTrial is tried below its parent: a walk that
// has descriptors again goes back to opening below parents (an open
// there without a wait clears byPathFirst), where every later directory
// went by a path as long as its depth.
func TestPathFirstEnds(t *testing.T) {
	sc := &scan{w: New(Options{})}
	sc.byPathFirst.Store(true)
	parent := &dir{name: t.TempDir(), fd: new(descriptor)}
	d := &dir{parent: parent, name: "d", depth: 1}
	fd, err := unix.Open(parent.name, dirFlags, 0)
	if err != nil {
		t.Fatal(err)
	}
	parent.fd.OpenFd(fd, 0, 0)
	for i := range 3 * pathTrial {
		if sc.pathFirst(d) {
			t.Fatalf("try %d: by path first with the parent's descriptor open", i)
		}
	}
	parent.fd.Close()
	byPath := 0
	for range 4 * pathTrial {
		if sc.pathFirst(d) {
			byPath++
		}
	}
	if want := 4*pathTrial - 4; byPath != want {
		t.Errorf("parent shed: %d of %d by path first, want %d", byPath, 4*pathTrial, want)
	}
}
