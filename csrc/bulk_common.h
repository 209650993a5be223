/*
 * bulk_common.h: what the Linux and darwin cores share beyond the ABI in
 * bulk.h. Internal to csrc/.
 */
#ifndef GODU_BULK_COMMON_H
#define GODU_BULK_COMMON_H

#include <stdint.h>

#include "bulk.h"

/* godu_add_size adds apparent sizes as du does: as unsigned 64-bit
 * numbers, saturating at 2^64-1 (-1 here; du prints "Infinity"). Only
 * sparse files near 2^63 bytes (tmpfs) reach it. */
static inline int64_t godu_add_size(int64_t a, int64_t b)
{
	uint64_t s = (uint64_t)a + (uint64_t)b;
	return s < (uint64_t)b ? -1 : (int64_t)s;
}

/* godu_later makes (*sec, *nsec) the later of it and (s, ns). */
static inline void godu_later(int64_t *sec, int64_t *nsec, int64_t s, int64_t ns)
{
	if (s > *sec || (s == *sec && ns > *nsec)) {
		*sec = s;
		*nsec = ns;
	}
}

/*
 * godu_fold adds r to the sums and returns 1 when r may be folded: a file
 * that is not a directory, has one link, was examined without error, sits
 * on the directory's device and is no firmlink (darwin).
 */
static inline int godu_fold(godu_ctl *c, const godu_rec *r)
{
	if (!(c->flags & GODU_FOLD) || r->err != 0 || r->type == GODU_T_DIR ||
	    r->type == GODU_T_UNKNOWN || r->nlink > 1 || r->dev != c->fold_dev ||
	    (r->flags & GODU_RF_FIRMLINK))
		return 0;
	c->sum_blocks += r->blocks;
	if (r->type == GODU_T_REG || r->type == GODU_T_LNK)
		c->sum_size = godu_add_size(c->sum_size, r->size);
	c->sum_count++;
	godu_later(&c->tmax_sec, &c->tmax_nsec, r->tsec, r->tnsec);
	return 1;
}

/* godu_reset clears a call's outputs. */
static inline void godu_reset(godu_ctl *c)
{
	c->nrecs = 0;
	c->names_len = 0;
	c->more = 0;
	c->err = 0;
	c->sum_blocks = 0;
	c->sum_size = 0;
	c->sum_count = 0;
	c->tmax_sec = INT64_MIN;
	c->tmax_nsec = 0;
}

/*
 * godu_stat_batch examines in place, with examine, the records a
 * GODU_NAMES_ONLY read listed, folding them; the kept records are compacted
 * to the front.
 */
static inline void godu_stat_batch(godu_ctl *c, int dirfd, godu_rec *recs, const char *names,
				   void (*examine)(int dirfd, const char *name, uint32_t flags,
						   godu_rec *r))
{
	uint32_t n = c->nrecs, kept = 0;
	godu_reset(c);
	for (uint32_t i = 0; i < n; i++) {
		godu_rec r = recs[i];
		examine(dirfd, names + r.name_off, c->flags, &r);
		if (godu_fold(c, &r))
			continue;
		recs[kept++] = r;
	}
	c->nrecs = kept;
}

#endif
