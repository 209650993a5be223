/*
 * attrparse.c: the getattrlistbulk(2) record parser. See attrparse.h and
 * testdata/getattrlistbulk/FORMAT.md: a record is a u32 length, the 20-byte
 * set of returned attributes, then the fixed fields of the returned bits
 * (ERROR first, then common attributes in bit order, then directory
 * attributes for directories or file attributes for everything else),
 * each advancing by its size rounded up to 4, then the variable area.
 * Every read goes through memcpy after a bounds check.
 */
#ifndef GODU_ATTRPARSE_C
#define GODU_ATTRPARSE_C
#include "attrparse.h"

#include <string.h>

static uint32_t godu_u32(const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof v);
	return v; /* both darwin targets are little-endian, as is x86-64 */
}

static uint64_t godu_u64(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

/* The size of one fixed field, or 0 for a bit the parser does not know. */
static uint32_t godu_cmn_size(uint32_t bit)
{
	switch (bit) {
	case GODU_ATTR_CMN_NAME: return 8; /* attrreference_t */
	case GODU_ATTR_CMN_DEVID: return 4;
	case GODU_ATTR_CMN_FSID: return 8;
	case GODU_ATTR_CMN_OBJTYPE: return 4;
	case GODU_ATTR_CMN_FLAGS: return 4;
	case GODU_ATTR_CMN_FILEID: return 8;
	case GODU_ATTR_CMN_PARENTID: return 8;
	}
	return 0;
}

static uint32_t godu_dir_size(uint32_t bit)
{
	switch (bit) {
	case GODU_ATTR_DIR_LINKCOUNT:
	case GODU_ATTR_DIR_ENTRYCOUNT:
	case GODU_ATTR_DIR_MOUNTSTATUS:
	case GODU_ATTR_DIR_IOBLOCKSIZE: return 4;
	case GODU_ATTR_DIR_ALLOCSIZE:
	case GODU_ATTR_DIR_DATALENGTH: return 8;
	}
	return 0;
}

static uint32_t godu_file_size(uint32_t bit)
{
	switch (bit) {
	case GODU_ATTR_FILE_LINKCOUNT:
	case GODU_ATTR_FILE_IOBLOCKSIZE: return 4;
	case GODU_ATTR_FILE_TOTALSIZE:
	case GODU_ATTR_FILE_ALLOCSIZE:
	case GODU_ATTR_FILE_DATALENGTH:
	case GODU_ATTR_FILE_DATAALLOCSIZE: return 8;
	}
	return 0;
}

/* The values the parser keeps from one record. */
struct godu_fields {
	uint32_t err, devid, objtype, flags, linkcount;
	uint64_t fileid, allocsize, datalength;
	int have_devid, have_objtype, have_name;
	uint32_t name_at; /* offset of the attrreference_t */
};

GODU_FN long godu_attr_parse(const unsigned char *buf, size_t avail, const godu_attrreq *req,
		     uint64_t dir_dev, godu_rec *rec, const unsigned char **name)
{
	if (avail < 24)
		return -1;
	uint32_t len = godu_u32(buf);
	if (len < 24 || len > avail)
		return -1;
	uint32_t rcmn = godu_u32(buf + 4), rvol = godu_u32(buf + 8),
		 rdir = godu_u32(buf + 12), rfile = godu_u32(buf + 16),
		 rfork = godu_u32(buf + 20);
	uint32_t want_cmn = req->common | GODU_ATTR_CMN_RETURNED_ATTRS;
	if (rvol || rfork || (rcmn & ~want_cmn) || (rdir & ~req->dir) ||
	    (rfile & ~req->file))
		return -1;
	/* With PACK_INVAL, every requested attribute has its place whether
	 * valid or not, except in an error record, which holds only what it
	 * returns (ERROR and NAME). */
	int inval = (req->options & GODU_FSOPT_PACK_INVAL_ATTRS) != 0;
	struct godu_fields f;
	memset(&f, 0, sizeof f);
	uint32_t off = 24;

	/* ERROR comes first. With PACK_INVAL it is always there. */
	if ((inval && (req->common & GODU_ATTR_CMN_ERROR)) || (rcmn & GODU_ATTR_CMN_ERROR)) {
		if (off + 4 > len)
			return -1;
		f.err = godu_u32(buf + off);
		off += 4;
	}
	if (f.err != 0)
		inval = 0;
	uint32_t lay = (inval ? req->common : rcmn) &
		       ~(GODU_ATTR_CMN_ERROR | GODU_ATTR_CMN_RETURNED_ATTRS);
	for (uint32_t bit = 1; bit != 0 && lay != 0; bit <<= 1) {
		if (!(lay & bit))
			continue;
		lay &= ~bit;
		uint32_t sz = godu_cmn_size(bit);
		if (sz == 0 || off + sz > len)
			return -1;
		int valid = (rcmn & bit) != 0;
		switch (bit) {
		case GODU_ATTR_CMN_NAME:
			f.have_name = valid;
			f.name_at = off;
			break;
		case GODU_ATTR_CMN_DEVID:
			f.have_devid = valid;
			f.devid = godu_u32(buf + off);
			break;
		case GODU_ATTR_CMN_OBJTYPE:
			f.have_objtype = valid;
			f.objtype = godu_u32(buf + off);
			break;
		case GODU_ATTR_CMN_FLAGS:
			f.flags = godu_u32(buf + off);
			break;
		case GODU_ATTR_CMN_FILEID:
			f.fileid = godu_u64(buf + off);
			break;
		}
		off += (sz + 3) & ~3u;
	}

	/* Directory attributes for directories, file attributes otherwise.
	 * Without a type, the returned sets tell which section is there. */
	int is_dir = f.have_objtype ? f.objtype == GODU_VDIR : rdir != 0;
	int is_file = f.have_objtype ? f.objtype != GODU_VDIR : rfile != 0;
	if ((is_dir && rfile) || (!is_dir && rdir))
		return -1;
	if (is_dir || is_file) {
		uint32_t rset = is_dir ? rdir : rfile;
		uint32_t dlay = inval ? (is_dir ? req->dir : req->file) : rset;
		for (uint32_t bit = 1; bit != 0 && dlay != 0; bit <<= 1) {
			if (!(dlay & bit))
				continue;
			dlay &= ~bit;
			uint32_t sz = is_dir ? godu_dir_size(bit) : godu_file_size(bit);
			if (sz == 0 || off + sz > len)
				return -1;
			if (rset & bit) {
				if (is_dir && bit == GODU_ATTR_DIR_ALLOCSIZE)
					f.allocsize = godu_u64(buf + off);
				else if (!is_dir && bit == GODU_ATTR_FILE_ALLOCSIZE)
					f.allocsize = godu_u64(buf + off);
				else if (!is_dir && bit == GODU_ATTR_FILE_LINKCOUNT)
					f.linkcount = godu_u32(buf + off);
				else if (!is_dir && bit == GODU_ATTR_FILE_DATALENGTH)
					f.datalength = godu_u64(buf + off);
			}
			off += (sz + 3) & ~3u;
		}
	}

	/* The name, through its reference: offset relative to the reference
	 * itself, length counting the NUL. */
	if (!f.have_name)
		return -1;
	int32_t doff;
	uint32_t nlen;
	memcpy(&doff, buf + f.name_at, 4);
	nlen = godu_u32(buf + f.name_at + 4);
	if (doff < 8 || nlen < 2 || (uint64_t)f.name_at + (uint64_t)doff + nlen > len)
		return -1;
	const unsigned char *nm = buf + f.name_at + doff;
	const unsigned char *nul = memchr(nm, 0, nlen);
	if (!nul || nul == nm)
		return -1;

	memset(rec, 0, sizeof *rec);
	rec->name_len = (uint32_t)(nul - nm);
	rec->ino = f.fileid;
	rec->dev = f.have_devid ? (uint64_t)f.devid : dir_dev;
	rec->err = (int32_t)f.err;
	if (!f.have_objtype)
		rec->type = is_dir ? GODU_T_DIR : GODU_T_UNKNOWN;
	else if (f.objtype == GODU_VDIR)
		rec->type = GODU_T_DIR;
	else if (f.objtype == GODU_VREG)
		rec->type = GODU_T_REG;
	else if (f.objtype == GODU_VLNK)
		rec->type = GODU_T_LNK;
	else if (f.objtype == GODU_VNON)
		rec->type = GODU_T_UNKNOWN;
	else
		rec->type = GODU_T_OTHER;
	if (rec->err == 0) {
		rec->blocks = (int64_t)(f.allocsize / 512 + (f.allocsize % 512 != 0));
		rec->size = is_dir ? 0 : (int64_t)f.datalength;
		rec->nlink = is_dir ? 1 : f.linkcount;
		if (f.flags & GODU_SF_DATALESS)
			rec->flags |= GODU_RF_DATALESS;
		if (is_dir && (f.flags & GODU_SF_FIRMLINK))
			rec->flags |= GODU_RF_FIRMLINK;
	}
	*name = nm;
	return (long)len;
}

GODU_FN long godu_attr_parse_buffer(const unsigned char *buf, size_t len, uint32_t count,
			    const godu_attrreq *req, uint64_t dir_dev, godu_rec *recs,
			    uint32_t rec_cap, char *names, uint32_t names_cap)
{
	size_t pos = 0;
	uint32_t used = 0;
	for (uint32_t i = 0; i < count; i++) {
		const unsigned char *nm;
		if (i >= rec_cap)
			return -1 - (long)i;
		long n = godu_attr_parse(buf + pos, len - pos, req, dir_dev, &recs[i], &nm);
		if (n < 0 || used + recs[i].name_len + 1 > names_cap)
			return -1 - (long)i;
		memcpy(names + used, nm, recs[i].name_len);
		names[used + recs[i].name_len] = 0;
		recs[i].name_off = used;
		used += recs[i].name_len + 1;
		pos += (size_t)n;
	}
	return (long)count;
}
#endif
