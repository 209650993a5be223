/*
 * attrparse.h: the getattrlistbulk(2) record parser. Portable C with no
 * macOS header: it is compiled and tested on Linux over buffers laid out as
 * XNU lays them out, and used by the darwin core (bulk_darwin.c).
 */
#ifndef GODU_ATTRPARSE_H
#define GODU_ATTRPARSE_H

#include <stddef.h>
#include <stdint.h>

#include "bulk.h"

/* The constants of the SDK's sys/attr.h that the parser knows. */
#define GODU_ATTR_CMN_NAME 0x00000001u
#define GODU_ATTR_CMN_DEVID 0x00000002u
#define GODU_ATTR_CMN_FSID 0x00000004u
#define GODU_ATTR_CMN_OBJTYPE 0x00000008u
#define GODU_ATTR_CMN_FLAGS 0x00040000u
#define GODU_ATTR_CMN_FILEID 0x02000000u
#define GODU_ATTR_CMN_PARENTID 0x04000000u
#define GODU_ATTR_CMN_ERROR 0x20000000u
#define GODU_ATTR_CMN_RETURNED_ATTRS 0x80000000u
#define GODU_ATTR_DIR_LINKCOUNT 0x01u
#define GODU_ATTR_DIR_ENTRYCOUNT 0x02u
#define GODU_ATTR_DIR_MOUNTSTATUS 0x04u
#define GODU_ATTR_DIR_ALLOCSIZE 0x08u
#define GODU_ATTR_DIR_IOBLOCKSIZE 0x10u
#define GODU_ATTR_DIR_DATALENGTH 0x20u
#define GODU_ATTR_FILE_LINKCOUNT 0x001u
#define GODU_ATTR_FILE_TOTALSIZE 0x002u
#define GODU_ATTR_FILE_ALLOCSIZE 0x004u
#define GODU_ATTR_FILE_IOBLOCKSIZE 0x008u
#define GODU_ATTR_FILE_DATALENGTH 0x200u
#define GODU_ATTR_FILE_DATAALLOCSIZE 0x400u
#define GODU_FSOPT_PACK_INVAL_ATTRS 0x8u
#define GODU_VDIR 2
#define GODU_VREG 1
#define GODU_VLNK 5
#define GODU_VNON 0
#define GODU_SF_FIRMLINK 0x00800000u
#define GODU_SF_DATALESS 0x40000000u

/* The attributes requested, and the call's options. */
typedef struct godu_attrreq {
	uint32_t common;
	uint32_t dir;
	uint32_t file;
	uint32_t options;
} godu_attrreq;

/* The attributes godu requests of getattrlistbulk. */
#define GODU_REQ_COMMON                                                        \
	(GODU_ATTR_CMN_RETURNED_ATTRS | GODU_ATTR_CMN_NAME | GODU_ATTR_CMN_ERROR | \
	 GODU_ATTR_CMN_DEVID | GODU_ATTR_CMN_OBJTYPE | GODU_ATTR_CMN_FLAGS |   \
	 GODU_ATTR_CMN_FILEID)
#define GODU_REQ_DIR GODU_ATTR_DIR_ALLOCSIZE
#define GODU_REQ_FILE                                                  \
	(GODU_ATTR_FILE_LINKCOUNT | GODU_ATTR_FILE_ALLOCSIZE |         \
	 GODU_ATTR_FILE_DATALENGTH)

/*
 * godu_attr_parse parses the record at buf, with avail bytes left in the
 * buffer. On success it returns the record's length (the step to the next
 * record), fills rec (name_off left 0, name_len set) and points *name at
 * the name's bytes inside buf. Entries whose device was not returned get
 * dir_dev. A record that does not fit avail, lies about its length or its
 * name, or holds attributes that were not requested is rejected with -1;
 * nothing outside buf[0, avail) is ever read.
 */
#ifdef GODU_ATTRPARSE_C
GODU_FN long godu_attr_parse(const unsigned char *buf, size_t avail, const godu_attrreq *req,
		     uint64_t dir_dev, godu_rec *rec, const unsigned char **name);
#endif

/*
 * godu_attr_parse_buffer parses count records from buf into recs and the
 * names arena (NUL-terminated), as the darwin core does, without folding.
 * It exists so that tests on any system can run the parser. Returns the
 * number of records parsed, or -1 - i when record i is rejected or the
 * output buffers are too small.
 */
#ifdef GODU_ATTRPARSE_C
GODU_FN long godu_attr_parse_buffer(const unsigned char *buf, size_t len, uint32_t count,
			    const godu_attrreq *req, uint64_t dir_dev, godu_rec *recs,
			    uint32_t rec_cap, char *names, uint32_t names_cap);
#endif

#endif
