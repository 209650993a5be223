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

/* godu_tree_hand hands directory i, open as fd but left unread (too big,
 * no room, an entry that failed), over to the caller: rewound, its
 * descriptor is node i's, and the walk ends (at most one per walk, so the
 * descriptors a walk leaves stay bounded). Where it cannot rewind, it
 * closes fd and the caller opens the directory again. */
static void godu_tree_hand(int *fds, uint32_t i, int fd)
{
	if (lseek(fd, 0, SEEK_SET) != 0) {
		close(fd);
		return;
	}
	fds[i] = fd;
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

GODU_FN int godu_tree_walk(godu_tree *t, int rootfd, const uint64_t *anc, godu_tnode *nodes,
		   char *tnames, godu_rec *recs, int32_t *lnode, char *names, char *dbuf,
		   const godu_live *live)
{
	int fds[GODU_TREE_MAX_NODES];
	uint32_t kids[GODU_TREE_MAX_NODES], stack[GODU_TREE_MAX_NODES];
	int32_t h[GODU_TREE_HSLOTS];
	uint32_t cap = t->node_cap < GODU_TREE_MAX_NODES ? t->node_cap : GODU_TREE_MAX_NODES;
	uint32_t times = t->flags & GODU_TIMES, sp = 0, spent = 0;
	int scarce = 0;
	int32_t keep = -1; /* out of descriptors: the node whose descriptor stays */
	t->nrecs = 0;
	t->names_len = 0;
	t->dirs = t->files = 0;
	t->blocks = t->size = 0;
	t->tmax_sec = INT64_MIN;
	t->tmax_nsec = 0;
	t->links_full = 0;
	if (t->nnodes > cap)
		return -1;
	memset(h, 0, sizeof h);
	for (uint32_t i = t->nnodes; i-- > 0;) {
		godu_tree_hadd(h, nodes, i);
		fds[i] = -1;
		stack[sp++] = i; /* the first on top */
	}
	while (sp > 0 && spent < t->budget) {
		/* Nearly out of node room: the rest is the caller's before a
		 * directory is opened that would not fit (it would be opened
		 * again by the caller). */
		if (spent > 0 && cap - t->nnodes < cap / 4)
			break;
		/* A worker is free: of what is found and not read, it gets
		 * all but the directory this one goes on with. */
		if (sp >= 2 && spent + t->dirs >= t->yield_min && godu_idle(live))
			break;
		uint32_t i = stack[--sp];
		godu_tnode *nd = &nodes[i];
		int32_t p = nd->parent;
		int fd = openat(p < 0 ? rootfd : fds[p], tnames + nd->name_off,
				O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW);
		int oerr = errno;
		if (fd < 0) {
			if (oerr == EMFILE || oerr == ENFILE) {
				/* Out of descriptors: give back what the walk holds,
				 * but for the parent of the directory that failed to
				 * open, which the caller opens it from. Reopened from
				 * further up instead, each such directory of a chain
				 * cost the path's length (under ulimit -n 7 the walk,
				 * its root held by the caller, runs out at every
				 * second level of a chain). */
				scarce = 1;
				keep = p;
				break;
			}
			continue;
		}
		/* The whole directory in the first half of the buffer, or the
		 * caller reads it (a big one is spread over workers there). */
		long n = godu_getdents(fd, dbuf, t->dbuf_cap / 2);
		if (n < 0) {
			close(fd);
			continue;
		}
		if (n > 0) {
			long more = godu_getdents(fd, dbuf + n, t->dbuf_cap - (uint32_t)n);
			if (more < 0) {
				close(fd);
				continue;
			}
			if (more > 0) { /* too big: the caller reads it, from this descriptor */
				godu_tree_hand(fds, i, fd);
				break;
			}
		}
		/* Room for every subdirectory (by d_type) first: a directory is
		 * left before any entry is examined rather than examined twice.
		 * (Each name's room is bounded by its record's length, padded to
		 * 8 bytes: no strlen of every name, most of them folded.) */
		uint32_t nsub = 0, subnames = 0, nfile = 0, filenames = 0, ndir = 0, nplain = 0;
		for (long pos = 0; pos < n;) {
			const struct godu_dirent64 *d = (const struct godu_dirent64 *)(dbuf + pos);
			pos += d->d_reclen;
			uint32_t len = (uint32_t)(d->d_reclen - offsetof(struct godu_dirent64, d_name));
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
		if (nsub > cap - t->nnodes || subnames > t->tnames_cap - t->tnames_len) {
			godu_tree_hand(fds, i, fd); /* the rest is the caller's */
			break;
		}
		/* A few subdirectories among many files, and a worker idle: the
		 * caller hands those on before it examines the files. */
		if (t->mixed_files > 0 && nplain >= t->mixed_files && ndir > 0 &&
		    ndir <= t->mixed_dirs) {
			godu_tree_hand(fds, i, fd);
			break;
		}
		/* And room for every file as a hard link, once links were met:
		 * where every file has several (a cp -al snapshot) the records
		 * fill, and a directory that overflowed them was examined for
		 * nothing, then again by the caller. The walk ends here instead
		 * (the caller grows the records for its next walk). */
		if (!(t->flags & GODU_TREE_ALL_LINKS) && t->nrecs > 0 &&
		    (nfile > t->rec_cap - t->nrecs || filenames > t->names_cap - t->names_len)) {
			godu_tree_hand(fds, i, fd);
			t->links_full = 1;
			break;
		}
		uint32_t m_nodes = t->nnodes, m_tnames = t->tnames_len;
		uint32_t m_recs = t->nrecs, m_names = t->names_len;
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
			if (godu_examine_at(fd, nm, times, &r) != 0) {
				ok = 0;
				break;
			}
			if ((t->flags & GODU_TREE_ONE_FS) && r.dev != t->root_dev)
				continue;
			if (r.type == GODU_T_DIR) {
				if (godu_tree_cycle(t, anc, nodes, h, (int32_t)i, r.dev, r.ino))
					continue;
				size_t len = strlen(nm);
				if (t->nnodes == cap || t->tnames_len + len + 1 > t->tnames_cap) {
					ok = 0;
					break;
				}
				godu_tnode *c = &nodes[t->nnodes];
				fds[t->nnodes++] = -1;
				c->ino = r.ino;
				c->dev = r.dev;
				c->blocks = r.blocks;
				c->size = r.size;
				c->tsec = r.tsec;
				c->tnsec = r.tnsec;
				c->parent = (int32_t)i;
				c->name_off = t->tnames_len;
				c->name_len = (uint32_t)len;
				c->read = 0;
				godu_copy_name(tnames + t->tnames_len, nm, len + 1);
				t->tnames_len += (uint32_t)len + 1;
				godu_tree_hadd(h, nodes, t->nnodes - 1);
				continue;
			}
			if (r.nlink > 1 && !(t->flags & GODU_TREE_ALL_LINKS)) {
				size_t len = strlen(nm);
				if (t->nrecs == t->rec_cap || t->names_len + len + 1 > t->names_cap) {
					t->links_full = 1; /* the caller grows the records */
					ok = 0;
					break;
				}
				r.name_off = t->names_len;
				r.name_len = (uint32_t)len;
				godu_copy_name(names + t->names_len, nm, len + 1);
				t->names_len += (uint32_t)len + 1;
				lnode[t->nrecs] = (int32_t)i;
				recs[t->nrecs++] = r;
				continue;
			}
			files++;
			blocks += r.blocks;
			if (r.type == GODU_T_REG || r.type == GODU_T_LNK)
				size = godu_add_size(size, r.size);
			godu_later(&tsec, &tnsec, r.tsec, r.tnsec);
		}
		if (!ok) { /* left to the caller, as if never read */
			if (t->nnodes != m_nodes) { /* (rare) the table forgets them */
				memset(h, 0, sizeof h);
				for (uint32_t j = 0; j < m_nodes; j++)
					godu_tree_hadd(h, nodes, j);
			}
			t->nnodes = m_nodes;
			t->tnames_len = m_tnames;
			t->nrecs = m_recs;
			t->names_len = m_names;
			godu_tree_hand(fds, i, fd);
			break;
		}
		/* Read: its parent's descriptor is needed for one subdirectory
		 * less. A directory left (on the stack, or for an error or its
		 * size) keeps its parent's open for the caller. */
		if (p >= 0 && --kids[p] == 0) {
			close(fds[p]);
			fds[p] = -1;
		}
		nd->read = 1;
		nd->files = files;
		nd->fblocks = blocks;
		nd->fsize = size;
		nd->ftsec = times ? tsec : INT64_MIN;
		nd->ftnsec = times ? tnsec : 0;
		t->dirs++;
		t->files += files;
		t->blocks += nd->blocks + blocks;
		t->size = godu_add_size(t->size, size);
		if (times) {
			godu_later(&t->tmax_sec, &t->tmax_nsec, nd->tsec, nd->tnsec);
			if (files > 0)
				godu_later(&t->tmax_sec, &t->tmax_nsec, tsec, tnsec);
		}
		uint32_t found = t->nnodes - m_nodes;
		if (found == 0) {
			close(fd);
			continue;
		}
		fds[i] = fd;
		kids[i] = found;
		for (uint32_t j = t->nnodes; j-- > m_nodes;)
			stack[sp++] = j;
	}
	/* A descriptor still open belongs to a directory whose subdirectories
	 * the walk left: the caller opens them from it, so reaching them never
	 * costs a walk down from an ancestor; or to the one directory handed
	 * over unread (read == 0), rewound, for the caller to read. */
	for (uint32_t i = 0; i < t->nnodes; i++) {
		nodes[i].fd = -1;
		if (fds[i] < 0)
			continue;
		if (scarce && (int32_t)i != keep)
			close(fds[i]);
		else
			nodes[i].fd = fds[i];
	}
	return 0;
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
