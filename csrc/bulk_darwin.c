/*
 * bulk_darwin.c: godu's per-directory loop on macOS: getattrlistbulk(2)
 * returns the names and attributes of many entries per call; the portable
 * parser (attrparse.c) turns its records into godu_recs. Where the call is
 * not supported for a volume, or refused (EACCES) for a directory that may
 * be read but not searched, a readdir + fstatat loop gives the same
 * records.
 */
#define GODU_CORE
#include "bulk.h"
#include "bulk_common.h"
#include "attrparse.c"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/attr.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

/* The SDK's values must be the ones the parser was written against. */
_Static_assert(ATTR_CMN_ERROR == GODU_ATTR_CMN_ERROR, "ATTR_CMN_ERROR");
_Static_assert(ATTR_CMN_RETURNED_ATTRS == GODU_ATTR_CMN_RETURNED_ATTRS, "RETURNED_ATTRS");
_Static_assert(ATTR_CMN_FILEID == GODU_ATTR_CMN_FILEID, "ATTR_CMN_FILEID");
_Static_assert(ATTR_CMN_FLAGS == GODU_ATTR_CMN_FLAGS, "ATTR_CMN_FLAGS");
_Static_assert(ATTR_DIR_ALLOCSIZE == GODU_ATTR_DIR_ALLOCSIZE, "ATTR_DIR_ALLOCSIZE");
_Static_assert(ATTR_FILE_LINKCOUNT == GODU_ATTR_FILE_LINKCOUNT, "ATTR_FILE_LINKCOUNT");
_Static_assert(ATTR_FILE_ALLOCSIZE == GODU_ATTR_FILE_ALLOCSIZE, "ATTR_FILE_ALLOCSIZE");
_Static_assert(ATTR_FILE_DATALENGTH == GODU_ATTR_FILE_DATALENGTH, "ATTR_FILE_DATALENGTH");
_Static_assert(FSOPT_PACK_INVAL_ATTRS == GODU_FSOPT_PACK_INVAL_ATTRS, "PACK_INVAL");
_Static_assert(SF_FIRMLINK == GODU_SF_FIRMLINK, "SF_FIRMLINK");
_Static_assert(SF_DATALESS == GODU_SF_DATALESS, "SF_DATALESS");
_Static_assert(sizeof(struct attrlist) == 24, "struct attrlist");
_Static_assert(sizeof(attribute_set_t) == 20, "attribute_set_t");

/* private ctl->flags bit: the volume needs the readdir fallback */
#define GODU_FALLBACK 0x100u

static const godu_attrreq godu_req = {GODU_REQ_COMMON, GODU_REQ_DIR, GODU_REQ_FILE, 0};

/*
 * godu_no_materialize turns off, for the whole process, the download of
 * dataless (cloud-evicted) files: reading attributes never materialises
 * them, but nothing godu does should, either. macOS's du does the same.
 */
GODU_FN int godu_no_materialize(void)
{
#ifdef IOPOL_TYPE_VFS_MATERIALIZE_DATALESS_FILES
	return setiopolicy_np(IOPOL_TYPE_VFS_MATERIALIZE_DATALESS_FILES,
			      IOPOL_SCOPE_PROCESS, IOPOL_MATERIALIZE_DATALESS_FILES_OFF);
#else
	return 0;
#endif
}

static uint8_t godu_type_of_mode(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFREG: return GODU_T_REG;
	case S_IFDIR: return GODU_T_DIR;
	case S_IFLNK: return GODU_T_LNK;
	case 0: return GODU_T_UNKNOWN;
	default: return GODU_T_OTHER;
	}
}

static void godu_from_stat(const struct stat *st, uint32_t flags, godu_rec *r)
{
	const struct timespec *ts = (flags & GODU_ATIME) ? &st->st_atimespec
				    : (flags & GODU_CTIME) ? &st->st_ctimespec : &st->st_mtimespec;
	r->tsec = (flags & GODU_TIMES) ? ts->tv_sec : 0;
	r->tnsec = (flags & GODU_TIMES) ? ts->tv_nsec : 0;
	r->ino = st->st_ino;
	r->dev = (uint32_t)st->st_dev;
	r->blocks = st->st_blocks;
	r->size = st->st_size;
	r->nlink = st->st_nlink;
	r->type = godu_type_of_mode(st->st_mode);
	r->flags = 0;
	if (st->st_flags & SF_DATALESS)
		r->flags |= GODU_RF_DATALESS;
	if (S_ISDIR(st->st_mode) && (st->st_flags & SF_FIRMLINK))
		r->flags |= GODU_RF_FIRMLINK;
	r->err = 0;
}

GODU_FN int godu_stat_one(int dirfd, const char *name, uint32_t flags, godu_rec *r)
{
	struct stat st;
	if (fstatat(dirfd, name, &st, (flags & GODU_FOLLOW) ? 0 : AT_SYMLINK_NOFOLLOW) != 0)
		return errno;
	godu_from_stat(&st, flags, r);
	return 0;
}

/*
 * godu_refine completes a parsed record where the request asks for more
 * than getattrlistbulk gave: a symlink's target (GODU_FOLLOW), or times
 * (GODU_*TIME). One fstatat per entry, only under those options.
 */
static void godu_refine(const godu_ctl *c, const char *name, godu_rec *r)
{
	int follow = (c->flags & GODU_FOLLOW) && r->type == GODU_T_LNK;
	if (r->err != 0 || !(follow || (c->flags & GODU_TIMES)))
		return;
	struct stat st;
	if (fstatat(c->fd, name, &st, follow || (c->flags & GODU_FOLLOW) ? 0 : AT_SYMLINK_NOFOLLOW) != 0) {
		r->err = errno;
		return;
	}
	godu_from_stat(&st, c->flags, r);
}

/* Stores r and its name, or says the buffers are full. */
static int godu_put(godu_ctl *c, const godu_rec *r, const char *nm, uint32_t len,
		    godu_rec *recs, char *names)
{
	if (c->nrecs == c->rec_cap || c->names_len + len + 1 > c->names_cap)
		return 0;
	godu_rec *out = &recs[c->nrecs++];
	*out = *r;
	memcpy(names + c->names_len, nm, len);
	names[c->names_len + len] = 0;
	out->name_off = c->names_len;
	out->name_len = len;
	c->names_len += len + 1;
	return 1;
}

/* The per-entry path for volumes without getattrlistbulk. */
static int godu_read_fallback(godu_ctl *c, godu_rec *recs, char *names)
{
	DIR *d = (DIR *)(uintptr_t)c->aux;
	if (!d) {
		int fd2 = dup(c->fd);
		if (fd2 < 0 || !(d = fdopendir(fd2))) {
			c->err = errno;
			if (fd2 >= 0)
				close(fd2);
			return -1;
		}
		c->aux = (uint64_t)(uintptr_t)d;
	}
	for (;;) {
		long pos = telldir(d);
		errno = 0;
		struct dirent *e = readdir(d);
		if (!e) {
			if (errno && errno != ENOENT) { /* ENOENT: removed while open, its end */
				c->err = errno;
				return -1;
			}
			c->eof = 1;
			return 0;
		}
		const char *nm = e->d_name;
		if (nm[0] == '.' && (!nm[1] || (nm[1] == '.' && !nm[2])))
			continue;
		uint32_t len = (uint32_t)strlen(nm);
		if (c->nrecs == c->rec_cap || c->names_len + len + 1 > c->names_cap) {
			seekdir(d, pos);
			c->more = 1;
			return 0;
		}
		godu_rec r;
		memset(&r, 0, sizeof r);
		struct stat st;
		if (fstatat(c->fd, nm, &st, (c->flags & GODU_FOLLOW) ? 0 : AT_SYMLINK_NOFOLLOW) == 0)
			godu_from_stat(&st, c->flags, &r);
		else
			r.err = errno;
		if (!godu_fold(c, &r))
			godu_put(c, &r, nm, len, recs, names);
	}
}

GODU_FN int godu_read(godu_ctl *c, int parentfd, const char *name, godu_rec *recs, char *names,
	      char *dbuf)
{
	godu_reset(c);
	if (c->fd < 0) {
		int fd = openat(parentfd, name,
				O_RDONLY | O_DIRECTORY | O_CLOEXEC |
					((c->flags & GODU_FOLLOW) ? 0 : O_NOFOLLOW));
		if (fd < 0) {
			c->err = errno;
			return -1;
		}
		c->fd = fd;
		c->dpos = c->dlen = c->dcount = 0;
		c->eof = 0;
		c->aux = 0;
		if (c->flags & GODU_DIR_STAT) {
			/* A mount point's record shows the covered directory;
			 * the opened fd is the mounted volume's root. */
			struct stat st;
			if (fstat(fd, &st) == 0)
				c->dir_dev = (uint32_t)st.st_dev;
		}
	}
	if (c->flags & GODU_FALLBACK)
		return godu_read_fallback(c, recs, names);
	for (;;) {
		if (c->dcount == 0) {
			if (c->eof)
				return 0;
			struct attrlist al;
			memset(&al, 0, sizeof al);
			al.bitmapcount = ATTR_BIT_MAP_COUNT;
			al.commonattr = godu_req.common;
			al.dirattr = godu_req.dir;
			al.fileattr = godu_req.file;
			int n = getattrlistbulk(c->fd, &al, dbuf, c->dbuf_cap, godu_req.options);
			if (n < 0) {
				if (errno == EINTR)
					continue;
				if ((errno == ENOTSUP || errno == EINVAL || errno == EACCES) && c->dlen == 0) {
					/* Never worked on this volume: per entry instead.
					 * EACCES: a directory that may be read but not
					 * searched lists its names, each entry failing
					 * on its own, as du reports them. */
					c->flags |= GODU_FALLBACK;
					return godu_read_fallback(c, recs, names);
				}
				struct stat gone;
				if (errno == ENOENT && fstat(c->fd, &gone) == 0 && gone.st_nlink == 0) {
					/* Removed while open: its end, as readdir has it. */
					c->eof = 1;
					return 0;
				}
				c->err = errno;
				c->eof = 1;
				return -1;
			}
			if (n == 0) {
				c->eof = 1;
				return 0;
			}
			c->dpos = 0;
			c->dlen = c->dbuf_cap;
			c->dcount = (uint32_t)n;
		}
		godu_rec r;
		const unsigned char *nm;
		long len = godu_attr_parse((const unsigned char *)dbuf + c->dpos,
					   c->dlen - c->dpos, &godu_req, c->fold_dev, &r, &nm);
		if (len < 0) {
			c->err = EBADMSG;
			c->eof = 1;
			c->dcount = 0;
			return -1;
		}
		if (c->flags & (GODU_FOLLOW | GODU_TIMES))
			godu_refine(c, (const char *)nm, &r); /* the parser checked its NUL */
		if (!godu_fold(c, &r) && !godu_put(c, &r, (const char *)nm, r.name_len, recs, names)) {
			c->more = 1;
			return 0;
		}
		c->dpos += (uint32_t)len;
		c->dcount--;
	}
}

static void godu_examine(int dirfd, const char *name, uint32_t flags, godu_rec *r)
{
	int e = godu_stat_one(dirfd, name, flags, r);
	if (e != 0)
		r->err = e;
}

GODU_FN int godu_stat(godu_ctl *c, int dirfd, godu_rec *recs, const char *names)
{
	godu_stat_batch(c, dirfd, recs, names, godu_examine);
	return 0;
}

GODU_FN int godu_close(godu_ctl *c)
{
	int r = 0;
	if (c->aux) {
		closedir((DIR *)(uintptr_t)c->aux);
		c->aux = 0;
	}
	if (c->fd >= 0)
		r = close(c->fd);
	c->fd = -1;
	return r;
}
