/*
 * xnu_shim.h: what the godu_xnu build puts in front of csrc/bulk_darwin.c
 * on Linux, for the names of the macOS SDK it uses beyond sys/attr.h
 * (which include/sys/attr.h stands in for): struct stat as darwin lays it
 * out (st_flags, st_*timespec), stat and fstatat answered by the
 * emulation in internal/xnu (st_flags from its knobs), the SF_ flags and
 * setiopolicy_np. The host's headers are included first, so that only
 * the core's own uses are renamed. Never part of a shipped build.
 */
#ifndef GODU_XNU_SHIM_H
#define GODU_XNU_SHIM_H

/* darwin's headers declare the POSIX and BSD names under any -std. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* darwin's struct stat (64-bit inodes): internal/xnu.Stat. */
struct godu_xnu_stat {
	int32_t st_dev;
	uint16_t st_mode;
	uint16_t st_nlink;
	uint64_t st_ino;
	uint32_t st_uid;
	uint32_t st_gid;
	int32_t st_rdev;
	int32_t st_pad0;
	struct timespec st_atimespec;
	struct timespec st_mtimespec;
	struct timespec st_ctimespec;
	struct timespec st_birthtimespec;
	int64_t st_size;
	int64_t st_blocks;
	int32_t st_blksize;
	uint32_t st_flags;
	uint32_t st_gen;
	int32_t st_lspare;
	int64_t st_qspare[2];
};
_Static_assert(sizeof(struct godu_xnu_stat) == 144, "darwin struct stat");

#define SF_FIRMLINK 0x00800000
#define SF_DATALESS 0x40000000

/* The emulation, exported by internal/bulk's godu_xnu build: 0 or an errno. */
extern int goduXnuFstatat(int fd, char *name, void *st, int flags);
extern int goduXnuSetiopolicy(int iotype, int scope, int policy);

static inline int godu_xnu_fstatat(int fd, const char *name, struct godu_xnu_stat *st, int flags)
{
	int e = goduXnuFstatat(fd, (char *)name, st, flags);
	if (e != 0) {
		errno = e;
		return -1;
	}
	return 0;
}

static inline int godu_xnu_fstat(int fd, struct godu_xnu_stat *st)
{
	return godu_xnu_fstatat(fd, "", st, 0);
}

#define stat godu_xnu_stat
#define fstatat godu_xnu_fstatat
#define fstat godu_xnu_fstat

#define IOPOL_TYPE_VFS_MATERIALIZE_DATALESS_FILES 3
#define IOPOL_SCOPE_PROCESS 0
#define IOPOL_MATERIALIZE_DATALESS_FILES_OFF 1

static inline int setiopolicy_np(int iotype, int scope, int policy)
{
	return goduXnuSetiopolicy(iotype, scope, policy);
}

#endif
