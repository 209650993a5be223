/*
 * sys/attr.h for the godu_xnu build: the names of the macOS SDK's
 * sys/attr.h that csrc/bulk_darwin.c uses, with the SDK's values and
 * layouts (testdata/getattrlistbulk/FORMAT.md), and getattrlistbulk(2)
 * answered by the emulation in internal/xnu. Never part of a shipped
 * build.
 */
#ifndef GODU_XNU_SYS_ATTR_H
#define GODU_XNU_SYS_ATTR_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

typedef uint32_t attrgroup_t;
typedef uint32_t fsobj_type_t;

struct attrlist {
	uint16_t bitmapcount;
	uint16_t reserved;
	attrgroup_t commonattr;
	attrgroup_t volattr;
	attrgroup_t dirattr;
	attrgroup_t fileattr;
	attrgroup_t forkattr;
};

typedef struct attribute_set {
	attrgroup_t commonattr;
	attrgroup_t volattr;
	attrgroup_t dirattr;
	attrgroup_t fileattr;
	attrgroup_t forkattr;
} attribute_set_t;

typedef struct attrreference {
	int32_t attr_dataoffset;
	uint32_t attr_length;
} attrreference_t;

#define ATTR_BIT_MAP_COUNT 5

#define ATTR_CMN_NAME 0x00000001
#define ATTR_CMN_DEVID 0x00000002
#define ATTR_CMN_FSID 0x00000004
#define ATTR_CMN_OBJTYPE 0x00000008
#define ATTR_CMN_FLAGS 0x00040000
#define ATTR_CMN_FILEID 0x02000000
#define ATTR_CMN_PARENTID 0x04000000
#define ATTR_CMN_ERROR 0x20000000
#define ATTR_CMN_RETURNED_ATTRS 0x80000000

#define ATTR_DIR_LINKCOUNT 0x00000001
#define ATTR_DIR_ENTRYCOUNT 0x00000002
#define ATTR_DIR_MOUNTSTATUS 0x00000004
#define ATTR_DIR_ALLOCSIZE 0x00000008
#define ATTR_DIR_IOBLOCKSIZE 0x00000010
#define ATTR_DIR_DATALENGTH 0x00000020

#define ATTR_FILE_LINKCOUNT 0x00000001
#define ATTR_FILE_TOTALSIZE 0x00000002
#define ATTR_FILE_ALLOCSIZE 0x00000004
#define ATTR_FILE_IOBLOCKSIZE 0x00000008
#define ATTR_FILE_DATALENGTH 0x00000200
#define ATTR_FILE_DATAALLOCSIZE 0x00000400

#define FSOPT_NOFOLLOW 0x00000001
#define FSOPT_REPORT_FULLSIZE 0x00000004
#define FSOPT_PACK_INVAL_ATTRS 0x00000008

enum vtype { VNON, VREG, VDIR, VBLK, VCHR, VLNK, VSOCK, VFIFO, VBAD, VSTR, VCPLX };

/* The emulation, exported by internal/bulk's godu_xnu build. */
extern int goduXnuGetattrlistbulk(int dirfd, void *alist, void *buf, size_t size, uint64_t options);

static inline int getattrlistbulk(int dirfd, void *alist, void *buf, size_t size, uint64_t options)
{
	int n = goduXnuGetattrlistbulk(dirfd, alist, buf, size, options);
	if (n < 0) {
		errno = -n;
		return -1;
	}
	return n;
}

#endif
