package walk

import (
	"github.com/godu-sh/godu/internal/bulk"
	"github.com/godu-sh/godu/internal/sys"
)

// releaseFd drops one subdirectory's claim on d's descriptor; the last
// closes it.
func (r *run) releaseFd(d *dir) {
	if d != nil && d.fdRefs.Add(-1) == 0 {
		d.fdMu.Lock()
		d.d.Close()
		d.fdMu.Unlock()
	}
}

// useFd returns d's descriptor for opening a subdirectory relative to it,
// reopening d if its descriptor was shed. Call doneFd after.
func (r *run) useFd(d *dir) (int, error) {
	d.fdMu.Lock()
	defer d.fdMu.Unlock()
	if d.d.Fd() < 0 {
		fd, err := r.reopen(d)
		if err != nil {
			return -1, err
		}
		d.d.OpenFd(fd, r.mode, d.dev)
	}
	d.users++
	return d.d.Fd(), nil
}

// reopen opens d anew, from its nearest ancestor that holds a descriptor
// (or its operand's path), closing the descriptors it opens on the way at
// once: a shed chain costs two descriptors at a time to cross, not one
// per level. The caller holds d.fdMu; locks are taken child to parent.
func (r *run) reopen(d *dir) (int, error) {
	flags := sys.O_RDONLY | sys.O_DIRECTORY | sys.O_CLOEXEC | sys.O_NOCTTY | sys.O_NONBLOCK
	if d.parent == nil {
		if !r.follow {
			flags |= sys.O_NOFOLLOW
		}
		return sys.Open(d.name, flags, 0)
	}
	if r.mode&bulk.Follow == 0 {
		flags |= sys.O_NOFOLLOW
	}
	p := d.parent
	p.fdMu.Lock()
	if pfd := p.d.Fd(); pfd >= 0 {
		fd, err := sys.Openat(pfd, d.name, flags, 0)
		p.fdMu.Unlock()
		return fd, err
	}
	p.fdMu.Unlock()
	if fd, ok := r.reopenBeneath(d, flags); ok {
		return fd, nil
	}
	pfd, err := r.reopen(p)
	if err != nil {
		return -1, err
	}
	fd, err := sys.Openat(pfd, d.name, flags, 0)
	sys.Close(pfd)
	return fd, err
}

func (r *run) doneFd(d *dir) {
	d.fdMu.Lock()
	d.users--
	d.fdMu.Unlock()
}

// waitFor adds d to (or removes it from) the directories whose opening
// waits for a descriptor.
func (r *run) waitFor(d *dir, waits bool) {
	r.waitMu.Lock()
	defer r.waitMu.Unlock()
	if waits {
		r.waiting = append(r.waiting, d)
		return
	}
	for i, w := range r.waiting {
		if w == d {
			r.waiting = append(r.waiting[:i], r.waiting[i+1:]...)
			break
		}
	}
}

// shed closes the descriptors of directories that are only waiting to
// open more subdirectories (they are reopened on demand), when the process
// has run out of descriptors. It returns how many it closed. Such a
// directory is the parent of a directory on the shared stack or of one
// whose opening waits for a descriptor: a read directory keeps its
// descriptor only while subdirectories of it wait there or are being
// opened, and one being opened right now is in use.
func (r *run) shed() int {
	r.stackMu.Lock()
	defer r.stackMu.Unlock()
	r.waitMu.Lock()
	defer r.waitMu.Unlock()
	n := 0
	try := func(d *dir) {
		if d != nil && d.fdMu.TryLock() {
			if d.users == 0 && d.d.Fd() >= 0 {
				d.d.Close()
				n++
			}
			d.fdMu.Unlock()
		}
	}
	for i, c := range r.stack {
		if i == 0 || r.stack[i-1].parent != c.parent { // siblings lie together
			try(c.parent)
		}
	}
	for _, c := range r.waiting {
		try(c.parent)
	}
	return n
}

// pause waits a millisecond for other workers to close descriptors
// (sys.Pause: without a descriptor of its own).
func pause() { sys.Pause() }

// tooManyFiles reports whether err means the process or system is out of
// descriptors.
func tooManyFiles(err error) bool { return err == sys.EMFILE || err == sys.ENFILE }
