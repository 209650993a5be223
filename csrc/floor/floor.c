/*
 * floor: the least work a disk-usage walk can do on Linux, kept as the
 * benchmark floor for godu. N threads share a stack of directories; each
 * directory is opened relative to its parent's fd, read with getdents64,
 * and every entry is statx'ed relative to it. It sums st_blocks and prints
 * the total in KiB. No hard-link dedup, no output per directory, no error
 * messages: a lower bound, not a tool.
 *
 *   floor [-j N] DIR
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

struct dir {
	int fd;
	atomic_int refs; /* itself while reading + unopened children */
};

struct item {
	struct dir *parent;
	char *name;   /* a directory to open relative to parent, or */
	char *chunk;  /* a getdents64 buffer of parent's entries to statx */
	long len;
};

static struct item *stack;
static size_t depth, cap;
static int busy; /* workers holding an item */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static atomic_llong total_blocks;

static void push_item(struct item it)
{
	pthread_mutex_lock(&mu);
	if (depth == cap) {
		cap = cap ? 2 * cap : 1024;
		stack = realloc(stack, cap * sizeof *stack);
		if (!stack)
			abort();
	}
	stack[depth++] = it;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&mu);
}

static void push(struct dir *parent, const char *name)
{
	struct item it = {parent, strdup(name), NULL, 0};
	push_item(it);
}

static void unref(struct dir *d)
{
	if (d && atomic_fetch_sub(&d->refs, 1) == 1) {
		close(d->fd);
		free(d);
	}
}

/* statx every entry of one getdents64 buffer of d; subdirectories are pushed. */
static long long stat_chunk(struct dir *d, const char *buf, long n)
{
	long long blocks = 0;
	for (long pos = 0; pos < n;) {
		const struct dirent64 *e = (const struct dirent64 *)(buf + pos);
		pos += e->d_reclen;
		const char *nm = e->d_name;
		if (nm[0] == '.' && (!nm[1] || (nm[1] == '.' && !nm[2])))
			continue;
		struct statx sx;
		if (statx(d->fd, nm, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT | AT_STATX_DONT_SYNC,
			  STATX_TYPE | STATX_MODE | STATX_INO | STATX_NLINK | STATX_BLOCKS | STATX_SIZE,
			  &sx) != 0)
			continue;
		blocks += (long long)sx.stx_blocks;
		if (S_ISDIR(sx.stx_mode)) {
			atomic_fetch_add(&d->refs, 1);
			push(d, nm);
		}
	}
	return blocks;
}

static void walk(struct item it, char *buf, size_t bufsz)
{
	if (it.chunk) {
		atomic_fetch_add(&total_blocks, stat_chunk(it.parent, it.chunk, it.len));
		free(it.chunk);
		unref(it.parent);
		return;
	}
	int fd = openat(it.parent ? it.parent->fd : AT_FDCWD, it.name,
			O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	unref(it.parent);
	free(it.name);
	if (fd < 0)
		return;
	struct dir *d = malloc(sizeof *d);
	d->fd = fd;
	atomic_init(&d->refs, 1);
	long long blocks = 0;
	for (int first = 1;; first = 0) {
		long n = syscall(SYS_getdents64, fd, buf, bufsz);
		if (n <= 0)
			break;
		if (first) {
			blocks += stat_chunk(d, buf, n);
			continue;
		}
		struct item c = {d, NULL, malloc((size_t)n), n};
		memcpy(c.chunk, buf, (size_t)n);
		atomic_fetch_add(&d->refs, 1);
		push_item(c);
	}
	atomic_fetch_add(&total_blocks, blocks);
	unref(d);
}

static void *worker(void *arg)
{
	(void)arg;
	size_t bufsz = 32 << 10;
	char *buf = malloc(bufsz);
	for (;;) {
		pthread_mutex_lock(&mu);
		while (depth == 0 && busy > 0)
			pthread_cond_wait(&cv, &mu);
		if (depth == 0) {
			pthread_cond_broadcast(&cv);
			pthread_mutex_unlock(&mu);
			break;
		}
		struct item it = stack[--depth];
		busy++;
		pthread_mutex_unlock(&mu);
		walk(it, buf, bufsz);
		pthread_mutex_lock(&mu);
		busy--;
		if (busy == 0 && depth == 0)
			pthread_cond_broadcast(&cv);
		pthread_mutex_unlock(&mu);
	}
	free(buf);
	return NULL;
}

int main(int argc, char **argv)
{
	int jobs = 2;
	int opt;
	while ((opt = getopt(argc, argv, "j:")) != -1) {
		if (opt == 'j')
			jobs = atoi(optarg);
		else
			return 2;
	}
	if (optind != argc - 1 || jobs < 1) {
		fprintf(stderr, "usage: floor [-j N] DIR\n");
		return 2;
	}
	struct statx sx;
	if (statx(AT_FDCWD, argv[optind], AT_SYMLINK_NOFOLLOW, STATX_BLOCKS, &sx) != 0) {
		perror(argv[optind]);
		return 1;
	}
	total_blocks = (long long)sx.stx_blocks;
	push(NULL, argv[optind]);
	pthread_t *t = calloc((size_t)jobs, sizeof *t);
	for (int i = 0; i < jobs; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < jobs; i++)
		pthread_join(t[i], NULL);
	printf("%lld\t%s\n", (total_blocks + 1) / 2, argv[optind]);
	return 0;
}
