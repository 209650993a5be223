package walk

import (
	"sync"
	"sync/atomic"

	"github.com/godu-sh/godu/internal/bulk"
	"github.com/godu-sh/godu/internal/sys"
)

// dirFlags are the flags every directory of a walk is opened with, beside
// O_NOFOLLOW where symlinks are not followed.
const dirFlags = sys.O_RDONLY | sys.O_DIRECTORY | sys.O_CLOEXEC | sys.O_NOCTTY | sys.O_NONBLOCK

// descriptor is a directory being read (a bulk.Dir) and the lifetime of
// its descriptor once it is read: the descriptor stays open while
// subdirectories of the directory remain to be opened relative to it
// (claims), and the last claim's release closes it. Out of descriptors,
// one that no subdirectory is being opened relative to right now (users)
// may be shed, closed early; the next use reopens it.
//
// Until its directory is read, a descriptor is its worker's alone; from
// hold on, mu guards the bulk.Dir's descriptor.
type descriptor struct {
	bulk.Dir
	claims atomic.Int32 // subdirectories not yet opened relative to it
	mu     sync.Mutex
	users  int // subdirectories being opened relative to it right now (mu)
}

// hold sets the claims on the descriptor: one for each subdirectory that
// will open relative to it (a subtree walk's stand-in, never visited), or
// one while the directory's own visit lasts, which adds one for each
// subdirectory it passes on (scan.count) and releases its own at its end.
func (f *descriptor) hold(claims int32) { f.claims.Store(claims) }

// release drops one claim; the last closes the descriptor.
func (f *descriptor) release() {
	if f.claims.Add(-1) == 0 {
		f.mu.Lock()
		f.Close()
		f.mu.Unlock()
	}
}

// use returns the descriptor for opening a subdirectory relative to it,
// first reopening it with reopen (which returns a new descriptor, opened
// in mode) if it was shed. Call done after.
func (f *descriptor) use(reopen func() (int, error), mode bulk.Mode, dev uint64) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.Fd() < 0 {
		fd, err := reopen()
		if err != nil {
			return -1, err
		}
		f.OpenFd(fd, mode, dev)
	}
	f.users++
	return f.Fd(), nil
}

// begin starts a use that is not an opening: the directory's own visit,
// which reads it. Call done after.
func (f *descriptor) begin() {
	f.mu.Lock()
	f.users++
	f.mu.Unlock()
}

// done ends a use.
func (f *descriptor) done() {
	f.mu.Lock()
	f.users--
	f.mu.Unlock()
}

// shed closes the descriptor if it is open and not in use, without
// waiting for a lock held elsewhere. It reports whether it closed it,
// and whether it is open still (or may be: locked elsewhere).
func (f *descriptor) shed() (closed, open bool) {
	if !f.mu.TryLock() {
		return false, true
	}
	defer f.mu.Unlock()
	switch {
	case f.Fd() < 0:
		return false, false
	case f.users == 0:
		f.Close()
		return true, false
	}
	return false, true
}

// mayBeOpen reports whether the descriptor is open, or may be (its lock
// is held elsewhere).
func (f *descriptor) mayBeOpen() bool {
	if !f.mu.TryLock() {
		return true
	}
	defer f.mu.Unlock()
	return f.Fd() >= 0
}

// lock and unlock hold the descriptor still (neither shed nor closed nor
// reopened) while Fd is read and used, as when reopening a directory
// below it.
func (f *descriptor) lock()   { f.mu.Lock() }
func (f *descriptor) unlock() { f.mu.Unlock() }

// useFd is d.fd.use with d reopened from wk's cursor (reopenNear) or
// its ancestors (reopen).
func (sc *scan) useFd(wk *worker, d *dir) (int, error) {
	near := false
	defer func() {
		// d, open now, stands nearer than the cursor for what comes
		// next (the next keep makes the cursor anew). Where a worker
		// goes on alone, short of descriptors, the cursor goes: opening
		// d's subdirectory then takes the two descriptors it took before.
		// Not under d's lock: the cursor is mostly below d, and locks are
		// taken child to parent.
		if near && sc.alone.Load() {
			wk.dropCursor()
		}
	}()
	return d.fd.use(func() (int, error) {
		scarcity.reopened.Add(1)
		sc.outOfDescriptors()
		var fd int
		var err error
		fd, near, err = sc.reopen(wk, d)
		if err == nil && !near && !sameDir(fd, d) {
			sys.Close(fd)
			return -1, sys.ENOENT // another directory is at its path now
		}
		if err == nil {
			sc.hold(d) // to be shed again
		}
		return fd, err
	}, sc.mode, d.dev)
}

// releaseFd drops one subdirectory's claim on d's descriptor (none for an
// operand, which has no parent).
func (sc *scan) releaseFd(d *dir) {
	if d != nil {
		d.fd.release()
	}
}

// openOperand opens the operand's directory by its path, as du does.
func (sc *scan) openOperand(path string) (int, error) {
	flags := dirFlags
	if !sc.follow {
		flags |= sys.O_NOFOLLOW
	}
	return sys.Open(path, flags, 0)
}

// reopen opens d anew: below its parent if the parent's descriptor is
// open, else from wk's cursor or another worker's (reopenNear, near: the
// directory checked to be d already; none with wk nil), else from its
// nearest ancestor that holds a descriptor (or its operand's path),
// closing the descriptors it opens on the way at once: a shed chain costs
// two descriptors at a time to cross, not one per level. The caller
// holds d's descriptor's lock; locks are taken child to parent.
func (sc *scan) reopen(wk *worker, d *dir) (fd int, near bool, err error) {
	if d.parent == nil {
		// The operand's path is resolved anew: what is at it now must be
		// the directory walked so far, not one a rename above the operand
		// (a symlink, say) put there.
		scarcity.steps.Add(1)
		fd, err := sc.openOperand(d.name)
		if err == nil && !sameDir(fd, d) {
			sys.Close(fd)
			return -1, false, sys.ENOENT
		}
		return fd, false, err
	}
	flags := dirFlags
	if sc.mode&bulk.Follow == 0 {
		flags |= sys.O_NOFOLLOW
	}
	p := d.parent
	p.fd.lock()
	if pfd := p.fd.Fd(); pfd >= 0 {
		scarcity.steps.Add(1)
		fd, err := sys.Openat(pfd, d.name, flags, 0)
		p.fd.unlock()
		return fd, false, err
	}
	p.fd.unlock()
	if wk != nil {
		if fd, err := sc.reopenNear(wk, d, flags); fd >= 0 || err != nil {
			return fd, fd >= 0, err
		}
	}
	if fd, done, err := sc.reopenBeneath(wk, d, flags); done {
		return fd, false, err
	}
	scarcity.walkDown.Add(1)
	pfd, _, err := sc.reopen(nil, p)
	if err != nil {
		return -1, false, err
	}
	scarcity.steps.Add(1)
	fd, err = sys.Openat(pfd, d.name, flags, 0)
	sys.Close(pfd)
	return fd, false, err
}

// sameDir reports whether fd, a directory opened anew by a path, is the
// directory d was listed as (device and inode), as fts checks for du: a
// rename (of d, or of a directory above the operand) may have put another
// directory at that path since.
func sameDir(fd int, d *dir) bool {
	dev, ino, ok := dirID(fd)
	return ok && dev == d.dev && ino == d.ino
}

// dirID is the device and inode of the directory open as fd, numbered as
// the readers number them.
func dirID(fd int) (dev, ino uint64, ok bool) { return sys.DirID(fd) }
