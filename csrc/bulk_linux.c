/*
 * bulk_linux.c: godu's per-directory loop on Linux: getdents64 into the
 * caller's buffer, then statx of every entry relative to the directory fd
 * (fstatat where the kernel or a sandbox lacks statx).
 */
#define _GNU_SOURCE
#include "bulk.h"
#include "bulk_common.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#ifndef AT_STATX_DONT_SYNC
#define AT_STATX_DONT_SYNC 0x4000
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
#ifdef STATX_BLOCKS
	if (godu_have_statx) {
		struct statx sx;
		unsigned mask = STATX_TYPE | STATX_MODE | STATX_INO | STATX_NLINK |
				STATX_BLOCKS | STATX_SIZE;
		if (flags & GODU_ATIME)
			mask |= STATX_ATIME;
		if (flags & GODU_MTIME)
			mask |= STATX_MTIME;
		if (flags & GODU_CTIME)
			mask |= STATX_CTIME;
		if (statx(dirfd, name, fl | AT_STATX_DONT_SYNC, mask, &sx) == 0) {
			const struct statx_timestamp *ts =
				(flags & GODU_ATIME) ? &sx.stx_atime
				: (flags & GODU_CTIME) ? &sx.stx_ctime : &sx.stx_mtime;
			r->tsec = (flags & GODU_TIMES) ? ts->tv_sec : 0;
			r->tnsec = (flags & GODU_TIMES) ? ts->tv_nsec : 0;
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

int godu_stat_one(int dirfd, const char *name, uint32_t flags, godu_rec *r)
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

int godu_read(godu_ctl *c, int parentfd, const char *name, godu_rec *recs,
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
			long n = syscall(SYS_getdents64, c->fd, dbuf, c->dbuf_cap);
			if (n < 0) {
				if (errno == EINTR)
					continue;
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
		if (nm[0] == '.' && (nm[1] == 0 || (nm[1] == '.' && nm[2] == 0))) {
			c->dpos += d->d_reclen;
			continue;
		}
		size_t len = strlen(nm);
		/* A call examines at most rec_cap entries, folded or not, so that
		 * a huge directory comes back in batches the caller can spread
		 * over workers. */
		if (seen == c->rec_cap || c->nrecs == c->rec_cap ||
		    c->names_len + len + 1 > c->names_cap) {
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
		memcpy(names + c->names_len, nm, len + 1);
		r->name_off = c->names_len;
		r->name_len = (uint32_t)len;
		c->names_len += (uint32_t)len + 1;
		c->nrecs++;
		c->dpos += d->d_reclen;
	}
}

int godu_stat(godu_ctl *c, int dirfd, godu_rec *recs, const char *names)
{
	godu_stat_batch(c, dirfd, recs, names, godu_examine);
	return 0;
}

int godu_close(godu_ctl *c)
{
	int r = 0;
	if (c->fd >= 0)
		r = close(c->fd);
	c->fd = -1;
	return r;
}

#ifdef __GLIBC__
#include <malloc.h>
/*
 * One malloc arena. glibc gives each new thread that touches malloc (cgo's
 * thread start frees a block in it) an arena of its own: a 128 MiB mmap,
 * two munmaps to align it and an mprotect, each a TLB shootdown across the
 * walk's threads. The kernel loop allocates nothing, so one shared arena
 * costs nothing and saves that per thread.
 */
__attribute__((constructor)) static void godu_one_arena(void)
{
	mallopt(M_ARENA_MAX, 1);
}
#endif
