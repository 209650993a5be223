/*
 * bulk_linux.c: godu's per-directory loop on Linux: getdents64 into the
 * caller's buffer, then statx of every entry relative to the directory fd
 * (fstatat where the kernel or a sandbox lacks statx).
 */
#define GODU_CORE
#define GODU_CORE_LINUX
#define _GNU_SOURCE
#include "bulk.h"
#include "bulk_common.h"

#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#ifndef AT_STATX_DONT_SYNC
#define AT_STATX_DONT_SYNC 0x4000
#endif

/* statx: the C library's, or where it has none (musl before 1.2.5, which
 * the command links statically where it can: no cpuid probing of caches
 * at start, see the Makefile) the system call itself, with the structure
 * and mask bits as the kernel's ABI fixes them (linux/stat.h). */
#if defined(STATX_BLOCKS)
typedef struct statx godu_statx_t;
#define godu_statx statx
#define GODU_HAVE_STATX 1
#elif defined(SYS_statx)
typedef struct {
	uint32_t stx_mask, stx_blksize;
	uint64_t stx_attributes;
	uint32_t stx_nlink, stx_uid, stx_gid;
	uint16_t stx_mode, spare0;
	uint64_t stx_ino, stx_size, stx_blocks, stx_attributes_mask;
	struct {
		int64_t tv_sec;
		uint32_t tv_nsec;
		int32_t reserved;
	} stx_atime, stx_btime, stx_ctime, stx_mtime;
	uint32_t stx_rdev_major, stx_rdev_minor, stx_dev_major, stx_dev_minor;
	uint64_t spare[14];
} godu_statx_t;
_Static_assert(sizeof(godu_statx_t) == 256, "struct statx is 256 bytes");
#define STATX_TYPE 0x001U
#define STATX_MODE 0x002U
#define STATX_NLINK 0x004U
#define STATX_ATIME 0x020U
#define STATX_MTIME 0x040U
#define STATX_CTIME 0x080U
#define STATX_INO 0x100U
#define STATX_SIZE 0x200U
#define STATX_BLOCKS 0x400U
static int godu_statx(int dirfd, const char *name, int flags, unsigned mask, godu_statx_t *sx)
{
	return (int)syscall(SYS_statx, dirfd, name, flags, mask, sx);
}
#define GODU_HAVE_STATX 1
#endif

struct godu_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* 1 while statx works; cleared for good on the first ENOSYS. */
static volatile int godu_have_statx = 1;

static uint8_t godu_type_of_mode(unsigned mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG: return GODU_T_REG;
	case S_IFDIR: return GODU_T_DIR;
	case S_IFLNK: return GODU_T_LNK;
	case 0: return GODU_T_UNKNOWN;
	default: return GODU_T_OTHER;
	}
}

static uint8_t godu_type_of_dtype(unsigned char t)
{
	switch (t) {
	case DT_REG: return GODU_T_REG;
	case DT_DIR: return GODU_T_DIR;
	case DT_LNK: return GODU_T_LNK;
	case DT_UNKNOWN: return GODU_T_UNKNOWN;
	default: return GODU_T_OTHER;
	}
}

/* godu_examine_at stats name relative to dirfd per flags (GODU_FOLLOW,
 * GODU_*TIME) into r. Returns 0 or an errno. */
static int godu_examine_at(int dirfd, const char *name, uint32_t flags, godu_rec *r)
{
	int fl = AT_NO_AUTOMOUNT | ((flags & GODU_FOLLOW) ? 0 : AT_SYMLINK_NOFOLLOW);
#ifdef GODU_HAVE_STATX
	if (godu_have_statx) {
		godu_statx_t sx;
		unsigned mask = STATX_TYPE | STATX_MODE | STATX_INO | STATX_NLINK |
				STATX_BLOCKS | STATX_SIZE;
		if (flags & GODU_ATIME)
			mask |= STATX_ATIME;
		if (flags & GODU_MTIME)
			mask |= STATX_MTIME;
		if (flags & GODU_CTIME)
			mask |= STATX_CTIME;
		if (godu_statx(dirfd, name, fl | AT_STATX_DONT_SYNC, mask, &sx) == 0) {
			int64_t sec = (flags & GODU_ATIME)   ? sx.stx_atime.tv_sec
				      : (flags & GODU_CTIME) ? sx.stx_ctime.tv_sec
							     : sx.stx_mtime.tv_sec;
			uint32_t nsec = (flags & GODU_ATIME)   ? sx.stx_atime.tv_nsec
					: (flags & GODU_CTIME) ? sx.stx_ctime.tv_nsec
							       : sx.stx_mtime.tv_nsec;
			r->tsec = (flags & GODU_TIMES) ? sec : 0;
			r->tnsec = (flags & GODU_TIMES) ? nsec : 0;
			r->ino = sx.stx_ino;
			r->dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
			r->blocks = (int64_t)sx.stx_blocks;
			r->size = (int64_t)sx.stx_size;
			r->nlink = sx.stx_nlink;
			r->type = godu_type_of_mode(sx.stx_mode);
			r->err = 0;
			return 0;
		}
		if (errno != ENOSYS)
			return errno;
		godu_have_statx = 0;
	}
#endif
	struct stat st;
	if (fstatat(dirfd, name, &st, fl) != 0)
		return errno;
	const struct timespec *ts = (flags & GODU_ATIME) ? &st.st_atim
				    : (flags & GODU_CTIME) ? &st.st_ctim : &st.st_mtim;
	r->tsec = (flags & GODU_TIMES) ? ts->tv_sec : 0;
	r->tnsec = (flags & GODU_TIMES) ? ts->tv_nsec : 0;
	r->ino = st.st_ino;
	r->dev = st.st_dev;
	r->blocks = st.st_blocks;
	r->size = st.st_size;
	r->nlink = (uint32_t)st.st_nlink;
	r->type = godu_type_of_mode(st.st_mode);
	r->err = 0;
	return 0;
}

GODU_FN int godu_stat_one(int dirfd, const char *name, uint32_t flags, godu_rec *r)
{
	return godu_examine_at(dirfd, name, flags, r);
}

/* Examines one listed entry: stat it, or keep its d_type on failure. */
static void godu_examine(int dirfd, const char *name, uint32_t flags, godu_rec *r)
{
	uint8_t dtype = r->type;
	int e = godu_examine_at(dirfd, name, flags, r);
	if (e != 0) {
		r->err = e;
		r->type = dtype;
		r->dev = 0;
		r->blocks = 0;
		r->size = 0;
		r->nlink = 0;
		r->tsec = 0;
		r->tnsec = 0;
	}
}

/* godu_getdents is getdents64, again after EINTR. A directory removed
 * while open fails with ENOENT: its end, as the C library's readdir (and
 * so du) takes it. */
static long godu_getdents(int fd, char *buf, uint32_t cap)
{
	long n;
	do
		n = syscall(SYS_getdents64, fd, buf, cap);
	while (n < 0 && errno == EINTR);
	if (n < 0 && errno == ENOENT)
		return 0;
	return n;
}

/* godu_copy_name copies a name's n bytes (its NUL included) from a
 * directory entry: names are short, and a call to the C library's memcpy
 * costs more than the copy where that is musl's (the static build's),
 * a plain loop (4 % of godu's samples on hardlinks, where every name is
 * copied). Words while 8 bytes are left, then bytes; GCC is kept from
 * turning the loop back into a call. */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("no-tree-loop-distribute-patterns")))
#endif
static inline void godu_copy_name(char *dst, const char *src, size_t n)
{
	for (; n >= 8; n -= 8, dst += 8, src += 8)
		__builtin_memcpy(dst, src, 8);
	for (; n > 0; n--)
		*dst++ = *src++;
}

/* godu_dot reports whether nm is "." or "..". */
static int godu_dot(const char *nm)
{
	return nm[0] == '.' && (nm[1] == 0 || (nm[1] == '.' && nm[2] == 0));
}

GODU_FN int godu_read(godu_ctl *c, int parentfd, const char *name, godu_rec *recs,
	      char *names, char *dbuf)
{
	uint32_t seen = 0;
	godu_reset(c);
	if (c->fd < 0) {
		int fd = openat(parentfd, name,
				O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK |
					((c->flags & GODU_FOLLOW) ? 0 : O_NOFOLLOW));
		if (fd < 0) {
			c->err = errno;
			return -1;
		}
		c->fd = fd;
		c->dpos = c->dlen = 0;
		c->eof = 0;
	}
	for (;;) {
		if (c->dpos >= c->dlen) {
			if (c->eof)
				return 0;
			long n = godu_getdents(c->fd, dbuf, c->dbuf_cap);
			if (n < 0) {
				c->err = errno;
				c->eof = 1;
				return -1;
			}
			if (n == 0) {
				c->eof = 1;
				return 0;
			}
			c->dpos = 0;
			c->dlen = (uint32_t)n;
		}
		struct godu_dirent64 *d = (struct godu_dirent64 *)(dbuf + c->dpos);
		const char *nm = d->d_name;
		if (godu_dot(nm)) {
			c->dpos += d->d_reclen;
			continue;
		}
		/* A call examines at most rec_cap entries, folded or not, so that
		 * a huge directory comes back in batches the caller can spread
		 * over workers. The record's length bounds the name and its NUL:
		 * the name's own length is needed only for an entry kept. */
		size_t room = (size_t)d->d_reclen - offsetof(struct godu_dirent64, d_name);
		if (seen == c->rec_cap || c->nrecs == c->rec_cap ||
		    c->names_len + room > c->names_cap) {
			c->more = 1;
			return 0;
		}
		seen++;
		godu_rec *r = &recs[c->nrecs];
		memset(r, 0, sizeof *r);
		r->ino = d->d_ino;
		r->type = godu_type_of_dtype(d->d_type);
		if (!(c->flags & GODU_NAMES_ONLY)) {
			godu_examine(c->fd, nm, c->flags, r);
			if (godu_fold(c, r)) {
				c->dpos += d->d_reclen;
				continue;
			}
		}
		size_t len = strlen(nm);
		godu_copy_name(names + c->names_len, nm, len + 1);
		r->name_off = c->names_len;
		r->name_len = (uint32_t)len;
		c->names_len += (uint32_t)len + 1;
		c->nrecs++;
		c->dpos += d->d_reclen;
	}
}

GODU_FN int godu_stat(godu_ctl *c, int dirfd, godu_rec *recs, const char *names)
{
	godu_stat_batch(c, dirfd, recs, names, godu_examine);
	return 0;
}

GODU_FN int godu_close(godu_ctl *c)
{
	int r = 0;
	if (c->fd >= 0)
		r = close(c->fd);
	c->fd = -1;
	return r;
}

/* The most nodes one subtree walk handles: its descriptor and child
 * counts live on the C stack. */
#define GODU_TREE_MAX_NODES 1024

/* godu_ident_hash is identHash in internal/bulk/idents.go. */
static inline uint64_t godu_ident_hash(uint64_t dev, uint64_t ino)
{
	uint64_t h = ino * 0x9E3779B97F4A7C15ull + dev * 0xC2B2AE3D27D4EB4Full;
	return h ^ (h >> 32);
}

/* godu_ident_has looks (dev, ino) up in a bulk.Idents table of nslots
 * slots (a power of two, or 0) of three words: device, inode, used. */
static int godu_ident_has(const uint64_t *slots, uint32_t nslots, uint64_t dev, uint64_t ino)
{
	if (nslots == 0)
		return 0;
	uint64_t m = nslots - 1;
	for (uint64_t i = godu_ident_hash(dev, ino) & m; slots[3 * i + 2] != 0; i = (i + 1) & m)
		if (slots[3 * i] == dev && slots[3 * i + 1] == ino)
			return 1;
	return 0;
}

/* The walk's own nodes by identity: a table of node indices + 1 (0 is
 * empty), twice the nodes, so that a cycle check costs O(1) but where a
 * directory's identity was met before in the walk. */
#define GODU_TREE_HSLOTS (2 * GODU_TREE_MAX_NODES)

static void godu_tree_hadd(int32_t *h, const godu_tnode *nodes, uint32_t i)
{
	uint64_t m = GODU_TREE_HSLOTS - 1;
	uint64_t k = godu_ident_hash(nodes[i].dev, nodes[i].ino) & m;
	while (h[k] != 0)
		k = (k + 1) & m;
	h[k] = (int32_t)i + 1;
}

/* godu_tree_cycle reports whether directory (dev, ino), found in node i,
 * is that node or one above it: in the walk (h, then its parents only
 * when the identity was met in the walk) or above its root (anc). O(1)
 * but for a directory met twice, where it was O(depth) for every one. */
static int godu_tree_cycle(const godu_tree *t, const uint64_t *anc, const godu_tnode *nodes,
			   const int32_t *h, int32_t i, uint64_t dev, uint64_t ino)
{
	uint64_t m = GODU_TREE_HSLOTS - 1;
	for (uint64_t k = godu_ident_hash(dev, ino) & m; h[k] != 0; k = (k + 1) & m) {
		const godu_tnode *n = &nodes[h[k] - 1];
		if (n->ino == ino && n->dev == dev) {
			for (; i >= 0; i = nodes[i].parent)
				if (nodes[i].ino == ino && nodes[i].dev == dev)
					return 1;
			break;
		}
	}
	return godu_ident_has(anc, t->nanc, dev, ino);
}

/* godu_idle reports whether a worker of the caller's is free and no
 * directory waits for one (see godu_live). */
static int godu_idle(const godu_live *l)
{
	return l &&
	       __atomic_load_n(&l->running, __ATOMIC_RELAXED) <
		       __atomic_load_n(&l->jobs, __ATOMIC_RELAXED) &&
	       __atomic_load_n(&l->stacked, __ATOMIC_RELAXED) == 0;
}

static uint64_t godu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* godu_wait is round spins of a wait for another thread: pauses for the
 * first thousand rounds (some tens of microseconds), then the CPU given
 * up for a moment, and past GODU_WAIT_YIELD of that, sleeps of 50 us (a
 * reader waited on may be waiting for a disk: the wait then costs little
 * CPU). *since is when the pauses ended (0 before); it returns how long
 * ago that was, in ns. A helper waiting for a directory gives up the
 * walk after GODU_HELP_WAIT of that (godu_walk_take). */
#define GODU_WAIT_YIELD 200000u
#define GODU_HELP_WAIT 200000u
static uint64_t godu_wait(uint32_t spins, uint64_t *since)
{
	if (spins < 1024) {
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#elif defined(__aarch64__)
		__asm__ __volatile__("yield");
#endif
		return 0;
	}
	uint64_t now = godu_now();
	if (*since == 0)
		*since = now;
	uint64_t waited = now - *since;
	if (waited < GODU_WAIT_YIELD) {
		sched_yield();
	} else {
		struct timespec ts = {0, 50000};
		nanosleep(&ts, NULL);
	}
	return waited;
}

/*
 * The state of one subtree walk, shared by its caller's thread (the owner)
 * and the helpers that join it (godu_tree_help): workers of the caller's
 * that are free while it runs. Each reader takes a directory from the
 * stack, reads and examines it on its own into its scratch, then commits
 * what it found: the subdirectories as nodes (pushed on the stack), the
 * hard links, the sums. Only taking and committing hold the lock. It
 * lives on the owner's stack: the owner returns only once no helper is
 * in it.
 */
typedef struct godu_walk {
	pthread_mutex_t mu;
	godu_tree *t;
	int rootfd;
	const uint64_t *anc;
	godu_tnode *nodes;
	char *tnames;
	godu_rec *recs;
	int32_t *lnode;
	char *names;
	godu_live *live;
	uint32_t cap, times;
	uint32_t sp, spent;
	uint32_t inflight; /* directories taken and not committed */
	uint32_t helpers;  /* helpers in the walk (atomic outside the lock) */
	/* Room taken by readers in flight, out of what is left. */
	uint32_t rsv_nodes, rsv_tnames, rsv_recs, rsv_names;
	int stop;      /* no directory is taken any more (atomic outside the lock) */
	int open;      /* the owner's: the walk is open to helpers (live->walk) */
	int scarce;    /* out of descriptors */
	int32_t keep;  /* then the node whose descriptor stays */
	int fds[GODU_TREE_MAX_NODES];
	uint32_t kids[GODU_TREE_MAX_NODES], stack[GODU_TREE_MAX_NODES];
	int32_t h[GODU_TREE_HSLOTS];
} godu_walk;

/* One reader's own buffers: the kernel buffer and the scratch a directory
 * is examined into before it is committed. */
typedef struct godu_reader {
	char *dbuf;
	uint32_t dbuf_cap;
	godu_rec *scr;      /* the entries kept: subdirectories and hard links */
	uint32_t scr_cap;
	char *scr_names;
	uint32_t scr_names_cap;
	int helper;
} godu_reader;

/* For tests (bulk's TestTreeHelpers): how long a helper takes over a
 * directory beyond its calls, in nanoseconds (a walk that ends
 * meanwhile); and whether a walk, once open, waits up to 50 ms for a
 * helper to join before it takes a directory (a loaded machine may not
 * run the helpers before a walk of a few directories ends). */
static uint32_t godu_help_delay, godu_help_join;

GODU_FN void godu_set_help_test(uint32_t delay_ns, uint32_t join)
{
	__atomic_store_n(&godu_help_delay, delay_ns, __ATOMIC_RELAXED);
	__atomic_store_n(&godu_help_join, join, __ATOMIC_RELAXED);
}

/* godu_walk_end ends the reading of a directory taken off the stack: no
 * longer in flight, and the lock, held, released. */
static void godu_walk_end(godu_walk *w)
{
	__atomic_sub_fetch(&w->inflight, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&w->mu);
}

/* godu_walk_hand hands directory i, open as fd but left unread (too big,
 * no room, an entry that failed), over to the caller: rewound, its
 * descriptor is node i's, and the walk ends. Where it cannot rewind, it
 * closes fd and the caller opens the directory again. Under the lock,
 * which it releases, ending i's reading (godu_walk_end); a walk with
 * helpers may hand over several at once, at most one per reader. */
static void godu_walk_hand(godu_walk *w, uint32_t i, int fd)
{
	if (lseek(fd, 0, SEEK_SET) != 0)
		close(fd);
	else
		w->fds[i] = fd;
	__atomic_store_n(&w->stop, 1, __ATOMIC_RELAXED);
	godu_walk_end(w);
}

/* godu_walk_take takes the next directory off the walk's stack, or
 * returns -1 when the walk takes no more (its budget, its room, a free
 * worker of the caller's, a directory handed over) or has no more (none
 * on the stack, none in flight). While the stack is empty and a
 * directory is in flight, whose subdirectories may come next, it waits;
 * a helper leaves meanwhile once its caller has work (live->stacked). */
static int64_t godu_walk_take(godu_walk *w, int owner)
{
	godu_tree *t = w->t;
	godu_live *live = w->live;
	/* Open to helpers, once no other walk is. */
	uint64_t none = 0;
	if (owner && !w->open && live && __atomic_load_n(&live->walk, __ATOMIC_RELAXED) == 0) {
		w->open = __atomic_compare_exchange_n(&live->walk, &none, (uint64_t)(uintptr_t)w, 0,
						      __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
		if (w->open && __atomic_load_n(&godu_help_join, __ATOMIC_RELAXED)) {
			uint64_t until = godu_now() + 50000000u;
			while (__atomic_load_n(&w->helpers, __ATOMIC_ACQUIRE) == 0 && godu_now() < until)
				sched_yield();
		}
	}
	for (;;) {
		pthread_mutex_lock(&w->mu);
		if (!w->stop) {
			/* Nearly out of node room: the rest is the caller's
			 * before a directory is opened that would not fit (it
			 * would be opened again by the caller). */
			if (w->spent >= t->budget ||
			    (w->spent > 0 && w->cap - t->nnodes - w->rsv_nodes < w->cap / 4))
				__atomic_store_n(&w->stop, 1, __ATOMIC_RELAXED);
			/* A worker is free, and neither with the walk nor about
			 * to join it (a walk open to helpers, and the free one
			 * waiting awake): of what is found and not read, it gets
			 * all but the directory this one goes on with. */
			else if (owner && w->sp >= 2 && w->spent + t->dirs >= t->yield_min &&
				 godu_idle(live) &&
				 !(w->open && (__atomic_load_n(&w->helpers, __ATOMIC_RELAXED) > 0 ||
					       __atomic_load_n(&live->spinning, __ATOMIC_RELAXED) > 0)))
				__atomic_store_n(&w->stop, 1, __ATOMIC_RELAXED);
		}
		if (w->stop || (w->sp == 0 && w->inflight == 0)) {
			pthread_mutex_unlock(&w->mu);
			return -1;
		}
		if (w->sp > 0) {
			uint32_t i = w->stack[w->sp - 1];
			__atomic_store_n(&w->sp, w->sp - 1, __ATOMIC_RELAXED);
			__atomic_add_fetch(&w->inflight, 1, __ATOMIC_RELAXED);
			pthread_mutex_unlock(&w->mu);
			return i;
		}
		pthread_mutex_unlock(&w->mu);
		/* Another reader reads a directory whose subdirectories may
		 * come next. A helper waits so for GODU_HELP_WAIT at most,
		 * and not once its caller has work. */
		uint64_t since = 0;
		for (uint32_t spins = 0; __atomic_load_n(&w->sp, __ATOMIC_RELAXED) == 0 &&
					 __atomic_load_n(&w->inflight, __ATOMIC_RELAXED) > 0 &&
					 !__atomic_load_n(&w->stop, __ATOMIC_RELAXED);
		     spins++) {
			uint64_t waited = godu_wait(spins, &since);
			if (!owner && (waited >= GODU_HELP_WAIT ||
				       __atomic_load_n(&live->stacked, __ATOMIC_RELAXED) > 0))
				return -1;
		}
	}
}

/* godu_walk_read reads directory i, taken off the stack, and commits what
 * it found. Returns with the lock released and i no longer in flight. */
static void godu_walk_read(godu_walk *w, godu_reader *rd, uint32_t i)
{
	godu_tree *t = w->t;
	godu_tnode *nodes = w->nodes;
	godu_tnode *nd = &nodes[i];
	int32_t p = nd->parent;
	char *dbuf = rd->dbuf;
	int fd = openat(p < 0 ? w->rootfd : w->fds[p], w->tnames + nd->name_off,
			O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW);
	int oerr = errno;
	if (fd < 0) {
		pthread_mutex_lock(&w->mu);
		if (oerr == EMFILE || oerr == ENFILE) {
			/* Out of descriptors: give back what the walk holds,
			 * but for the parent of the directory that failed to
			 * open, which the caller opens it from. Reopened from
			 * further up instead, each such directory of a chain
			 * cost the path's length (under ulimit -n 7 the walk,
			 * its root held by the caller, runs out at every second
			 * level of a chain). */
			if (!w->scarce) {
				w->scarce = 1;
				w->keep = p;
			}
			__atomic_store_n(&w->stop, 1, __ATOMIC_RELAXED);
		} else {
			nd->err = oerr;
		}
		godu_walk_end(w);
		return;
	}
	/* The whole directory in the first half of the buffer, or the caller
	 * reads it (a big one is spread over workers there). */
	long n = godu_getdents(fd, dbuf, rd->dbuf_cap / 2);
	if (n > 0) {
		long more = godu_getdents(fd, dbuf + n, rd->dbuf_cap - (uint32_t)n);
		if (more > 0) { /* too big: the caller reads it, from this descriptor */
			pthread_mutex_lock(&w->mu);
			godu_walk_hand(w, i, fd);
			return;
		}
		if (more < 0)
			n = -1;
	}
	if (n < 0) {
		close(fd);
		pthread_mutex_lock(&w->mu);
		godu_walk_end(w);
		return;
	}
	/* Room for every subdirectory (by d_type) first: a directory is left
	 * before any entry is examined rather than examined twice. (Each
	 * name's room is bounded by its record's length, padded to 8 bytes:
	 * no strlen of every name, most of them folded.) */
	uint32_t nsub = 0, subnames = 0, nfile = 0, filenames = 0, ndir = 0, nplain = 0, nent = 0;
	for (long pos = 0; pos < n;) {
		const struct godu_dirent64 *d = (const struct godu_dirent64 *)(dbuf + pos);
		pos += d->d_reclen;
		uint32_t len = (uint32_t)(d->d_reclen - offsetof(struct godu_dirent64, d_name));
		nent++;
		if (d->d_type == DT_DIR || d->d_type == DT_UNKNOWN) {
			nsub++;
			subnames += len;
			ndir += !godu_dot(d->d_name);
		} else {
			nplain++;
		}
		if (d->d_type != DT_DIR) {
			nfile++;
			filenames += len;
		}
	}
	int links = !(t->flags & GODU_TREE_ALL_LINKS);
	/* Links kept by identity alone take no room for names. */
	int link_names = !(t->flags & GODU_TREE_LINK_IDS);
	if (!link_names)
		filenames = 0;
	pthread_mutex_lock(&w->mu);
	int hand = nent > rd->scr_cap || (uint32_t)n > rd->scr_names_cap ||
		   nsub > w->cap - t->nnodes - w->rsv_nodes ||
		   subnames > t->tnames_cap - t->tnames_len - w->rsv_tnames;
	/* A few subdirectories among many files, and a worker idle: the
	 * caller hands those on before it examines the files. */
	hand = hand || (t->mixed_files > 0 && nplain >= t->mixed_files && ndir > 0 &&
			ndir <= t->mixed_dirs);
	/* And room for every file as a hard link, once links were met: where
	 * every file has several (a cp -al snapshot) the records fill, and a
	 * directory that overflowed them was examined for nothing, then again
	 * by the caller. The walk ends here instead (the caller grows the
	 * records for its next walk). */
	int rsv_links = links && t->nrecs + w->rsv_recs > 0;
	if (!hand && rsv_links &&
	    (nfile > t->rec_cap - t->nrecs - w->rsv_recs ||
	     filenames > t->names_cap - t->names_len - w->rsv_names)) {
		hand = 1;
		t->links_full = 1;
	}
	if (hand) {
		godu_walk_hand(w, i, fd);
		return;
	}
	w->rsv_nodes += nsub;
	w->rsv_tnames += subnames;
	if (rsv_links) {
		w->rsv_recs += nfile;
		w->rsv_names += filenames;
	}
	pthread_mutex_unlock(&w->mu);

	/* Examine every entry, keeping subdirectories and hard links in the
	 * scratch. */
	godu_rec *scr = rd->scr;
	uint32_t nscr = 0, scr_names = 0, spent = 0;
	uint64_t files = 0;
	int64_t blocks = 0, size = 0, tsec = INT64_MIN, tnsec = 0;
	int ok = 1;
	for (long pos = 0; pos < n;) {
		const struct godu_dirent64 *d = (const struct godu_dirent64 *)(dbuf + pos);
		pos += d->d_reclen;
		const char *nm = d->d_name;
		if (godu_dot(nm))
			continue;
		spent++;
		godu_rec r;
		memset(&r, 0, sizeof r);
		if (godu_examine_at(fd, nm, w->times, &r) != 0) {
			ok = 0;
			break;
		}
		if ((t->flags & GODU_TREE_ONE_FS) && r.dev != t->root_dev)
			continue;
		if (r.type == GODU_T_DIR || (r.nlink > 1 && links)) {
			if (r.type != GODU_T_DIR && !link_names) {
				scr[nscr++] = r; /* name_off and name_len 0 */
				continue;
			}
			size_t len = strlen(nm);
			r.name_off = scr_names;
			r.name_len = (uint32_t)len;
			godu_copy_name(rd->scr_names + scr_names, nm, len + 1);
			scr_names += (uint32_t)len + 1;
			scr[nscr++] = r;
			continue;
		}
		files++;
		blocks += r.blocks;
		if (r.type == GODU_T_REG || r.type == GODU_T_LNK)
			size = godu_add_size(size, r.size);
		godu_later(&tsec, &tnsec, r.tsec, r.tnsec);
	}

	uint32_t delay = __atomic_load_n(&godu_help_delay, __ATOMIC_RELAXED);
	if (rd->helper && delay > 0) {
		struct timespec ts = {0, (long)delay};
		nanosleep(&ts, NULL);
	}
	pthread_mutex_lock(&w->mu);
	w->rsv_nodes -= nsub;
	w->rsv_tnames -= subnames;
	if (rsv_links) {
		w->rsv_recs -= nfile;
		w->rsv_names -= filenames;
	}
	/* Commit: room for what was kept (a directory typed otherwise by
	 * the listing, links met only now), or the directory is left to the
	 * caller, as if never read. */
	uint32_t kdirs = 0, kdnames = 0, klinks = 0, klnames = 0;
	for (uint32_t k = 0; ok && k < nscr; k++) {
		if (scr[k].type == GODU_T_DIR) {
			kdirs++;
			kdnames += scr[k].name_len + 1;
		} else {
			klinks++;
			klnames += link_names ? scr[k].name_len + 1 : 0;
		}
	}
	if (ok && (kdirs > w->cap - t->nnodes - w->rsv_nodes ||
		   kdnames > t->tnames_cap - t->tnames_len - w->rsv_tnames))
		ok = 0;
	if (ok && (klinks > t->rec_cap - t->nrecs - w->rsv_recs ||
		   klnames > t->names_cap - t->names_len - w->rsv_names)) {
		t->links_full = 1; /* the caller grows the records */
		ok = 0;
	}
	if (!ok) {
		godu_walk_hand(w, i, fd);
		return;
	}
	uint32_t first = t->nnodes;
	for (uint32_t k = 0; k < nscr; k++) {
		godu_rec *r = &scr[k];
		const char *nm = rd->scr_names + r->name_off;
		if (r->type == GODU_T_DIR) {
			if (godu_tree_cycle(t, w->anc, nodes, w->h, (int32_t)i, r->dev, r->ino))
				continue;
			godu_tnode *c = &nodes[t->nnodes];
			w->fds[t->nnodes++] = -1;
			c->ino = r->ino;
			c->dev = r->dev;
			c->blocks = r->blocks;
			c->size = r->size;
			c->tsec = r->tsec;
			c->tnsec = r->tnsec;
			c->parent = (int32_t)i;
			c->name_off = t->tnames_len;
			c->name_len = r->name_len;
			c->read = 0;
			c->err = 0;
			godu_copy_name(w->tnames + t->tnames_len, nm, r->name_len + 1);
			t->tnames_len += r->name_len + 1;
			godu_tree_hadd(w->h, nodes, t->nnodes - 1);
			continue;
		}
		godu_rec *l = &w->recs[t->nrecs];
		*l = *r;
		if (link_names) {
			l->name_off = t->names_len;
			godu_copy_name(w->names + t->names_len, nm, r->name_len + 1);
			t->names_len += r->name_len + 1;
		}
		w->lnode[t->nrecs++] = (int32_t)i;
	}
	w->spent += spent;
	/* Read: its parent's descriptor is needed for one subdirectory less.
	 * A directory left (on the stack, or for its size or an entry that
	 * failed) keeps its parent's open for the caller, and so does one
	 * that failed to open (the caller reports its errno without using
	 * the parent's descriptor: kept for nothing until then). */
	if (p >= 0 && --w->kids[p] == 0) {
		close(w->fds[p]);
		w->fds[p] = -1;
	}
	nd->read = 1;
	nd->files = files;
	nd->fblocks = blocks;
	nd->fsize = size;
	nd->ftsec = w->times ? tsec : INT64_MIN;
	nd->ftnsec = w->times ? tnsec : 0;
	t->dirs++;
	t->files += files;
	t->blocks += nd->blocks + blocks;
	t->size = godu_add_size(t->size, size);
	if (w->times) {
		godu_later(&t->tmax_sec, &t->tmax_nsec, nd->tsec, nd->tnsec);
		if (files > 0)
			godu_later(&t->tmax_sec, &t->tmax_nsec, tsec, tnsec);
	}
	uint32_t found = t->nnodes - first;
	if (found == 0) {
		close(fd);
	} else {
		w->fds[i] = fd;
		w->kids[i] = found;
		uint32_t sp = w->sp;
		for (uint32_t j = t->nnodes; j-- > first;)
			w->stack[sp++] = j; /* the first on top */
		__atomic_store_n(&w->sp, sp, __ATOMIC_RELAXED);
	}
	godu_walk_end(w);
}

GODU_FN int godu_tree_walk(godu_tree *t, int rootfd, const uint64_t *anc, godu_tnode *nodes,
		   char *tnames, godu_rec *recs, int32_t *lnode, char *names, char *dbuf,
		   godu_rec *scr, uint32_t scr_cap, char *scr_names, godu_live *live)
{
	godu_walk w;
	uint32_t cap = t->node_cap < GODU_TREE_MAX_NODES ? t->node_cap : GODU_TREE_MAX_NODES;
	t->nrecs = 0;
	t->names_len = 0;
	t->dirs = t->files = 0;
	t->blocks = t->size = 0;
	t->tmax_sec = INT64_MIN;
	t->tmax_nsec = 0;
	t->links_full = 0;
	if (t->nnodes > cap)
		return -1;
	memset(&w, 0, offsetof(godu_walk, fds));
	memset(w.h, 0, sizeof w.h);
	pthread_mutex_init(&w.mu, NULL);
	w.t = t;
	w.rootfd = rootfd;
	w.anc = anc;
	w.nodes = nodes;
	w.tnames = tnames;
	w.recs = recs;
	w.lnode = lnode;
	w.names = names;
	w.live = live;
	w.cap = cap;
	w.times = t->flags & GODU_TIMES;
	w.keep = -1;
	for (uint32_t i = t->nnodes; i-- > 0;) {
		godu_tree_hadd(w.h, nodes, i);
		w.fds[i] = -1;
		w.stack[w.sp++] = i; /* the first on top */
	}
	godu_reader rd = {dbuf, t->dbuf_cap, scr, scr_cap, scr_names, t->dbuf_cap / 2, 0};
	for (int64_t i; (i = godu_walk_take(&w, 1)) >= 0;)
		godu_walk_read(&w, &rd, (uint32_t)i);
	if (w.open) {
		/* Closed: no helper joins once none is between reading the
		 * slot and joining; then every helper in it leaves. */
		__atomic_store_n(&live->walk, 0, __ATOMIC_SEQ_CST);
		uint64_t since = 0;
		for (uint32_t spins = 0; __atomic_load_n(&live->attach, __ATOMIC_SEQ_CST) != 0; spins++)
			godu_wait(spins, &since);
		pthread_mutex_lock(&w.mu);
		__atomic_store_n(&w.stop, 1, __ATOMIC_RELAXED);
		pthread_mutex_unlock(&w.mu);
		since = 0;
		for (uint32_t spins = 0; __atomic_load_n(&w.helpers, __ATOMIC_ACQUIRE) != 0; spins++)
			godu_wait(spins, &since);
	}
	pthread_mutex_destroy(&w.mu);
	/* A descriptor still open belongs to a directory whose subdirectories
	 * the walk left: the caller opens them from it, so reaching them never
	 * costs a walk down from an ancestor; or to a directory handed over
	 * unread (read == 0), rewound, for the caller to read. */
	for (uint32_t i = 0; i < t->nnodes; i++) {
		nodes[i].fd = -1;
		if (w.fds[i] < 0)
			continue;
		if (w.scarce && (int32_t)i != w.keep)
			close(w.fds[i]);
		else
			nodes[i].fd = w.fds[i];
	}
	return 0;
}

/* godu_tree_help joins the subtree walk open to helpers in live, if any,
 * and reads its directories, on the caller's buffers, while it has some
 * and the caller's own stack has none (live->stacked); returns how many it
 * read. */
GODU_FN int godu_tree_help(godu_live *live, char *dbuf, uint32_t dbuf_cap, godu_rec *scr,
			   uint32_t scr_cap, char *scr_names)
{
	__atomic_add_fetch(&live->attach, 1, __ATOMIC_SEQ_CST);
	godu_walk *w = (godu_walk *)(uintptr_t)__atomic_load_n(&live->walk, __ATOMIC_SEQ_CST);
	if (w) {
		pthread_mutex_lock(&w->mu);
		int stopped = w->stop;
		if (!stopped)
			__atomic_add_fetch(&w->helpers, 1, __ATOMIC_RELAXED);
		pthread_mutex_unlock(&w->mu);
		if (stopped)
			w = NULL;
	}
	__atomic_sub_fetch(&live->attach, 1, __ATOMIC_SEQ_CST);
	if (!w)
		return 0;
	godu_reader rd = {dbuf, dbuf_cap, scr, scr_cap, scr_names, dbuf_cap / 2, 1};
	int read = 0;
	while (__atomic_load_n(&live->stacked, __ATOMIC_RELAXED) == 0) {
		int64_t i = godu_walk_take(w, 0);
		if (i < 0)
			break;
		godu_walk_read(w, &rd, (uint32_t)i);
		read++;
	}
	__atomic_sub_fetch(&w->helpers, 1, __ATOMIC_RELEASE);
	return read;
}

#ifdef __GLIBC__
#include <malloc.h>
/*
 * One malloc arena. glibc gives each new thread that touches malloc (cgo's
 * thread start frees a block in it) an arena of its own: a 128 MiB mmap,
 * two munmaps to align it and an mprotect, each a TLB shootdown across the
 * walk's threads. The kernel loop allocates nothing, so one shared arena
 * costs nothing and saves that per thread. The setting is the process's:
 * the command makes it (bulk.TuneProcess), a library never does by itself.
 */
GODU_FN int godu_one_arena(void)
{
	return mallopt(M_ARENA_MAX, 1);
}
#else
GODU_FN int godu_one_arena(void) { return 1; }
#endif
