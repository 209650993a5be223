/*
 * bulk.h: the per-directory kernel loop of godu, shared by the Linux and
 * darwin cores and by the Go package internal/bulk.
 *
 * One call reads as much of one directory as fits in buffers that the caller
 * owns and reuses: fixed-size records (godu_rec) plus a names arena. The call
 * never allocates. When the buffers fill, ctl->more is set and the caller
 * calls again with the same ctl (and so the same open fd); the directory is
 * finished when a call returns with more == 0.
 *
 * Layouts here are mirrored by Go structs in internal/bulk; the Go side
 * asserts at build time that sizes and offsets agree.
 */
#ifndef GODU_BULK_H
#define GODU_BULK_H

#include <stdint.h>

/*
 * GODU_FN marks the entry points below. They are static: the core is
 * compiled inside the cgo preamble that calls it, so that no C symbol of
 * godu is exported and two copies of the engine (two modules vendoring
 * it) link into one program. Their declarations are seen only where
 * GODU_CORE is defined, by the core's own translation unit.
 */
#define GODU_FN static __attribute__((unused))

/* Entry types (godu_rec.type). */
enum {
	GODU_T_UNKNOWN = 0,
	GODU_T_REG = 1,
	GODU_T_DIR = 2,
	GODU_T_LNK = 3,
	GODU_T_OTHER = 4 /* fifo, socket, device */
};

/* godu_rec.flags */
#define GODU_RF_DATALESS 0x1 /* darwin: contents evicted (SF_DATALESS) */
#define GODU_RF_FIRMLINK 0x2 /* darwin: directory is a firmlink */

/* godu_ctl.flags */
#define GODU_FOLD 0x1       /* fold plain files into the sums */
#define GODU_NAMES_ONLY 0x2 /* list names and types, stat nothing */
#define GODU_DIR_STAT 0x4   /* darwin: fstat the opened directory (dir_dev) */
#define GODU_FOLLOW 0x8     /* follow symlinks: examine and open their targets */
#define GODU_ATIME 0x10     /* report st_atime in tsec/tnsec */
#define GODU_MTIME 0x20     /* report st_mtime */
#define GODU_CTIME 0x40     /* report st_ctime */
#define GODU_TIMES (GODU_ATIME | GODU_MTIME | GODU_CTIME)

/* One directory entry. 72 bytes, no implicit padding. */
typedef struct godu_rec {
	uint64_t ino;
	uint64_t dev;
	int64_t blocks; /* allocated size in 512-byte units (st_blocks) */
	int64_t size;   /* st_size */
	uint32_t nlink;
	uint32_t name_off; /* offset of the NUL-terminated name in the arena */
	uint32_t name_len; /* without the NUL */
	int32_t err;       /* errno when the entry could not be examined, else 0 */
	uint8_t type;      /* GODU_T_* */
	uint8_t flags;     /* GODU_RF_* */
	uint8_t pad[6];
	int64_t tsec;      /* with GODU_*TIME: the time asked for */
	int64_t tnsec;
} godu_rec;

/*
 * The state of one directory being read, in and out. Plain integers only:
 * it lives in Go memory and is passed to C by pointer.
 */
typedef struct godu_ctl {
	int32_t fd;        /* in/out: the directory's fd; < 0 asks the call to open it */
	uint32_t flags;    /* in: GODU_FOLD, GODU_NAMES_ONLY, GODU_DIR_STAT,
			      GODU_FOLLOW, GODU_*TIME */
	uint32_t dpos;     /* private: unread window of the kernel buffer */
	uint32_t dlen;
	uint32_t rec_cap;  /* in: capacity of recs, in records */
	uint32_t names_cap; /* in: capacity of the names arena, in bytes */
	uint32_t dbuf_cap; /* in: capacity of the kernel buffer, in bytes */
	uint32_t nrecs;    /* out: records written by this call */
	uint32_t names_len; /* out: arena bytes used by this call */
	int32_t err;       /* out: errno of a failure of the directory itself */
	uint32_t eof;      /* private: the kernel reported the end */
	uint32_t more;     /* out: 1 when the call must be repeated */
	uint64_t fold_dev; /* in: only files on this device are folded */
	int64_t sum_blocks; /* out: folded files' st_blocks */
	int64_t sum_size;   /* out: folded regular files' and symlinks' st_size */
	uint64_t sum_count; /* out: number of folded files */
	uint64_t dir_dev;   /* out (GODU_DIR_STAT): st_dev of the opened directory */
	int64_t tmax_sec;   /* out: latest time among folded files */
	int64_t tmax_nsec;
	uint64_t aux;       /* private: darwin's fallback DIR stream, else 0 */
	uint32_t dcount;    /* private: darwin: records left in the kernel buffer */
	uint32_t pad;
} godu_ctl;

/*
 * godu_read opens ctl->fd when it is negative (openat(parentfd, name,
 * O_RDONLY|O_DIRECTORY|O_CLOEXEC, with O_NOFOLLOW unless GODU_FOLLOW, and on
 * Linux O_NOCTTY|O_NONBLOCK)), then reads entries into recs and names from
 * the kernel buffer dbuf. "." and ".." are skipped. With GODU_FOLD, entries
 * that are not directories, have one link, were examined without error, sit
 * on fold_dev and are no firmlink (darwin) are added to the sums instead of
 * being written out. Returns 0, or -1 with ctl->err set when the directory
 * cannot be opened or read (records already written stay valid).
 */
#ifdef GODU_CORE
GODU_FN int godu_read(godu_ctl *ctl, int parentfd, const char *name, godu_rec *recs,
	      char *names, char *dbuf);
#endif

/* godu_close closes the directory and releases what the core holds for it. */
#ifdef GODU_CORE
GODU_FN int godu_close(godu_ctl *ctl);
#endif

/*
 * godu_stat examines ctl->nrecs records whose names were listed by a
 * GODU_NAMES_ONLY read of the directory dirfd, in place, folding as
 * godu_read does (the kept records are compacted to the front).
 * Linux only: the darwin core never lists names without attributes.
 */
#ifdef GODU_CORE
GODU_FN int godu_stat(godu_ctl *ctl, int dirfd, godu_rec *recs, const char *names);
#endif

/*
 * godu_stat_one examines one path relative to dirfd per flags: GODU_FOLLOW
 * follows a final symlink, GODU_*TIME reports that time. Returns 0 or an
 * errno.
 */
#ifdef GODU_CORE
GODU_FN int godu_stat_one(int dirfd, const char *name, uint32_t flags, godu_rec *rec);
#endif

/*
 * The subtree walk (Linux): once a directory is read, one call reads the
 * subtree below it, depth first, until a budget of entries is spent, and
 * returns only the sums of each directory it read, the hard-linked files
 * it met, and the directories it left for the caller.
 */

/* One subdirectory the subtree walk found. 112 bytes. */
typedef struct godu_tnode {
	uint64_t ino;
	uint64_t dev;
	int64_t blocks;    /* the directory's own st_blocks */
	int64_t size;
	int64_t tsec;      /* with GODU_*TIME: the time asked for */
	int64_t tnsec;
	int32_t parent;    /* index of the node it was found in; -1: the root */
	uint32_t name_off; /* NUL-terminated name in the tree's names arena */
	uint32_t name_len;
	uint32_t read;     /* 1: read by the walk, its totals are in the sums */
	/* Of a read node: the entries in it counted in the sums, but for
	 * subdirectories (du -S's figure, less the directory itself). */
	uint64_t files;
	int64_t fblocks;
	int64_t fsize;
	int64_t ftsec;     /* latest time among them; INT64_MIN when none */
	int64_t ftnsec;
	/* out: of a read node whose subdirectories the walk left unopened, its
	 * open descriptor, which the caller now owns (they are opened from it,
	 * never by a path from above); out of descriptors (EMFILE), only that
	 * of the parent of the directory that failed to open. Of an unread
	 * node (read == 0) the walk opened and ended at (one, or with
	 * helpers one per reader), its descriptor, rewound, for the caller to
	 * read it from (never open it again); -1 for every other node. */
	int32_t fd;
	/* out: of an unread node the walk failed to open (but for want of
	 * descriptors), the errno: the caller reports it without opening the
	 * directory again; 0 for every other node. */
	int32_t err;
} godu_tnode;

/* godu_tree.flags, beside GODU_*TIME */
#define GODU_TREE_ONE_FS 0x100    /* skip entries on a device other than root_dev */
#define GODU_TREE_ALL_LINKS 0x200 /* count every link (no hard-link records) */
#define GODU_TREE_LINK_IDS 0x800  /* hard-link records without their names */

/* The state of one subtree walk, in and out. Plain integers only. */
typedef struct godu_tree {
	uint32_t flags;     /* in: GODU_*TIME, GODU_TREE_* */
	uint32_t node_cap;  /* in: capacity of nodes */
	uint32_t tnames_cap; /* in: capacity of the nodes' names arena */
	uint32_t rec_cap;   /* in: capacity of recs (hard-link records) */
	uint32_t names_cap; /* in: capacity of the records' names arena */
	uint32_t dbuf_cap;  /* in: capacity of the kernel buffer */
	uint32_t budget;    /* in: entries the walk may examine */
	uint32_t nanc;      /* in: slots of the anc table (bulk.Idents), 0 or a power of two */
	uint64_t root_dev;  /* in: the device entries must be on (GODU_TREE_ONE_FS) */
	uint32_t nnodes;    /* in: the root's subdirectories in nodes; out: all nodes */
	uint32_t tnames_len; /* in/out: bytes used in the nodes' names arena */
	uint32_t nrecs;     /* out: hard-link records */
	uint32_t names_len; /* out: bytes used in the records' names arena */
	uint64_t dirs;      /* out: directories read */
	uint64_t files;     /* out: other entries counted */
	int64_t blocks;     /* out: st_blocks of both */
	int64_t size;       /* out: st_size of regular files and symlinks */
	int64_t tmax_sec;   /* out: latest time among them (GODU_*TIME) */
	int64_t tmax_nsec;
	uint32_t links_full; /* out: 1 when the walk ran out of room for hard links */
	/* in: with mixed_files > 0, a directory holding 1 to mixed_dirs
	 * subdirectories and mixed_files other entries or more (by d_type) is
	 * handed over unread, ending the walk; 0: none is. */
	uint16_t mixed_dirs;
	uint16_t mixed_files;
	/* in: with live given, once yield_min entries and directories were
	 * read, the walk ends before its next directory while a worker of the
	 * caller's is free, none of its directories waits (godu_live) and the
	 * walk holds two found directories or more. */
	uint32_t yield_min;
	uint32_t pad;
} godu_tree;

/* The caller's workers as a subtree walk sees them while it works,
 * written by the caller meanwhile (bulk.Live): how many of jobs (the
 * workers allowed at the moment, which the caller may change) work, how
 * many directories wait for one on its stack, and whether a free one
 * waits awake (spinning). A walk writes walk (itself, open to helpers:
 * godu_tree_help) and the helpers attach. */
typedef struct godu_live {
	int32_t running;
	int32_t stacked;
	int32_t jobs;
	int32_t spinning; /* a free worker waits, awake, and helps a walk */
	uint64_t walk;    /* the walk open to helpers (godu_tree_help), or 0 */
	int32_t attach;   /* helpers between reading walk and joining it */
	int32_t pad;
} godu_live;

/*
 * godu_tree_walk reads, depth first, the subdirectories in nodes[0..nnodes)
 * (found in the directory open as rootfd) and the subdirectories found in
 * them, appending each found subdirectory to nodes. A directory is read
 * whole or not at all: one that cannot be opened or read, has an entry
 * that cannot be examined, spans more than half the kernel buffer, or does
 * not fit in the buffers is left unread for the caller, who reads it as
 * any directory (and reports its errors); room for its subdirectories is
 * checked before any entry is examined. A directory the walk opened and
 * then left (too big, no room, an entry that failed) ends the walk: its
 * descriptor, rewound, is handed to the caller in its node (fd), so that
 * no directory is opened twice, and a walk hands over at most one (one
 * per reader with helpers: below). A subdirectory that is the same
 * directory as one of its ancestors (the nodes above it, then anc: a
 * bulk.Idents table of the root and the directories above it) is left
 * out, as are entries on another device with GODU_TREE_ONE_FS. Files with
 * several links are written to recs, with the index of the node they are
 * in to lnode (unless GODU_TREE_ALL_LINKS); every other entry of a read
 * directory, and the read directory itself, is added to the sums, and to
 * the node's. Once budget entries were examined no more directories are
 * read; nor, with live given, once yield_min entries and directories were
 * read and two found directories or more wait in the walk, while a worker
 * of the caller's is free, none waits awake (spinning), no helper is in
 * the walk and no directory waits for one: those then go to that worker
 * and the caller. With mixed_files set (a worker of the caller's is
 * idle), a directory of a few subdirectories among many other entries is
 * handed over as one too big is: the caller examines its subdirectories
 * first and passes them on, then examines the rest meanwhile, where the
 * walk would examine both in turn on one thread. Every descriptor opened
 * is closed before the call returns, but those in the nodes' fd, the
 * caller's to close.
 *
 * With live given, the walk is open to helpers while it runs, unless
 * another walk is (live->walk, one at a time): a free worker of the
 * caller's joins it (godu_tree_help, on its own kernel buffer and
 * scratch) and reads the walk's directories beside it, each whole, as
 * the walk itself does. Every directory is examined into its reader's
 * scratch (scr: room for every entry of half the kernel buffer; names in
 * scr_names, as much), then committed under the walk's lock, so that what
 * a directory found is added whole or not at all; a directory handed over
 * ends the walk for every reader, and a walk with helpers may hand over
 * one per reader. The walk returns once no helper is in it.
 *
 * Linux only: declared for the Linux core (GODU_CORE_LINUX).
 */
#if defined(GODU_CORE) && defined(GODU_CORE_LINUX)
GODU_FN int godu_tree_walk(godu_tree *t, int rootfd, const uint64_t *anc, godu_tnode *nodes,
		   char *tnames, godu_rec *recs, int32_t *lnode, char *names, char *dbuf,
		   godu_rec *scr, uint32_t scr_cap, char *scr_names, godu_live *live);
GODU_FN int godu_tree_help(godu_live *live, char *dbuf, uint32_t dbuf_cap, godu_rec *scr,
			   uint32_t scr_cap, char *scr_names);
GODU_FN void godu_set_help_test(uint32_t delay_ns, uint32_t join);
#endif

#endif
