/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* A fabric model's memory shared by processes (arena.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "simfabric/arena.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define ARENA_MAGIC	0x414e524144414d55ull	/* "UMADARNA" read little-endian */
#define ARENA_ALIGN	16u
#define ARENA_PAGE	4096u
/* Blocks this big start on a page, so that their untouched tail takes no memory. */
#define ARENA_BIG	ARENA_PAGE

/*
 * At the start of the memory file, alone on its page (the model starts on
 * the next one): what every process maps and checks.  Any process that
 * maps it can write over it, so each keeps its own copy of what it must
 * not change (sim_arena) and checks the shared one whenever it takes the
 * lock (header_damage).
 */
struct arena_header {
	uint64_t magic;
	uint64_t base;			/* where every process maps it */
	uint64_t size;
	uint64_t used;			/* bytes handed out from the start, this page included */
	uint64_t root;
	uint64_t root_size;		/* the root object's bytes, which never change once set */
	pthread_mutex_t lock;		/* robust, process-shared */
};
_Static_assert(sizeof(struct arena_header) <= 4096, "the header fits its page");

/* The root object's bytes this process keeps a copy of, to see them written over. */
#define ROOT_COPY_MAX	256u

/*
 * The arena's file is sized once, whole (sparse), and sealed: a process it
 * is handed to can neither cut it short under the others' mappings
 * (SIGBUS) nor grow it (the size no longer the header's: later processes
 * could not map it), nor add a seal (F_SEAL_FUTURE_WRITE: later processes
 * could not map it writable).
 */
#define ARENA_SEALS	(F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)
/* Seals that would make it unwritable. */
#define ARENA_WRITE_SEALS	(F_SEAL_WRITE | F_SEAL_FUTURE_WRITE)

/* Before each block: its size, for realloc. */
struct block_head {
	uint64_t size;
	uint64_t pad;
};

/* This process's view of one arena, and its own copy of what the header must say. */
struct sim_arena {
	struct arena_header *h;
	size_t size;
	int fd;
	unsigned users;			/* attach calls of this process not yet released */
	uint64_t root, root_size;
	uint8_t root_copy[ROOT_COPY_MAX];
	uint64_t used_seen;		/* used only grows: what it was when last seen */
	char damage[160];		/* why the header was found written over; "" while it was not */
};

/*
 * Addresses tried, in order, for a new arena.  The first lie where a
 * program's heap and libraries do not go and where ThreadSanitizer keeps
 * application memory; the others where AddressSanitizer does.  A client
 * maps at the server's choice or does without.
 */
static const uint64_t arena_hints[] = {
	0x006000000000ull, 0x006800000000ull, 0x007000000000ull, 0x007800000000ull,
	0x3a0000000000ull, 0x3b0000000000ull, 0x3c0000000000ull, 0x3d0000000000ull,
};

/* The arenas of this process, for sim_mem_*() to find an owner's. */
#define ARENAS_MAX	8
static struct sim_arena *arenas[ARENAS_MAX];
static pthread_mutex_t arenas_lock = PTHREAD_MUTEX_INITIALIZER;

static int remember(struct sim_arena *a)
{
	unsigned i;
	int r = -ENOSPC;

	pthread_mutex_lock(&arenas_lock);
	for (i = 0; i < ARENAS_MAX && r; i++)
		if (!arenas[i]) {
			arenas[i] = a;
			r = 0;
		}
	pthread_mutex_unlock(&arenas_lock);
	return r;
}

static struct sim_arena *arena_of(const void *p)
{
	struct sim_arena *found = NULL;
	unsigned i;

	pthread_mutex_lock(&arenas_lock);
	for (i = 0; i < ARENAS_MAX && !found; i++)
		if (arenas[i] && sim_arena_holds(arenas[i], p, 1))
			found = arenas[i];
	pthread_mutex_unlock(&arenas_lock);
	return found;
}

static void *map_at(uint64_t base, size_t size, int fd)
{
	void *m = mmap((void *)(uintptr_t)base, size, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_FIXED_NOREPLACE | MAP_NORESERVE, fd, 0);

	if (m == MAP_FAILED)
		return NULL;
	if ((uintptr_t)m != base) {
		/* A kernel without MAP_FIXED_NOREPLACE took it as a hint. */
		munmap(m, size);
		errno = EADDRINUSE;
		return NULL;
	}
	/* Core dumps leave the sparse range out. */
	madvise(m, size, MADV_DONTDUMP);
	return m;
}

int sim_arena_create(size_t size, struct sim_arena **out)
{
	struct sim_arena *a;
	pthread_mutexattr_t attr;
	void *m = NULL;
	unsigned i;
	int r;

	*out = NULL;
	size = (size + ARENA_PAGE - 1) / ARENA_PAGE * ARENA_PAGE;
	if (size < 2 * ARENA_PAGE)
		return -EINVAL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->fd = memfd_create("umad-fabric", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (a->fd < 0 || ftruncate(a->fd, (off_t)size) < 0 ||
	    fcntl(a->fd, F_ADD_SEALS, ARENA_SEALS) < 0) {
		r = -errno;
		goto fail;
	}
	for (i = 0; i < sizeof(arena_hints) / sizeof(arena_hints[0]) && !m; i++)
		m = map_at(arena_hints[i], size, a->fd);
	if (!m) {
		r = -EADDRINUSE;
		goto fail;
	}
	a->h = m;
	a->size = size;
	a->users = 1;
	a->h->magic = ARENA_MAGIC;
	a->h->base = (uintptr_t)m;
	a->h->size = size;
	a->h->used = a->used_seen = ARENA_PAGE;
	pthread_mutexattr_init(&attr);
	pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
	r = -pthread_mutex_init(&a->h->lock, &attr);
	pthread_mutexattr_destroy(&attr);
	if (r == 0)
		r = remember(a);
	if (r == 0) {
		*out = a;
		return 0;
	}
fail:
	if (a->h)
		munmap(a->h, size);
	if (a->fd >= 0)
		close(a->fd);
	free(a);
	return r;
}

/* Is this arena of ours the one in fd? */
static int same_file(const struct sim_arena *a, int fd)
{
	struct stat x, y;

	return fstat(a->fd, &x) == 0 && fstat(fd, &y) == 0 && x.st_dev == y.st_dev &&
	       x.st_ino == y.st_ino;
}

/*
 * Is fd a memory file this process may map as an arena: its user's, a
 * regular file of whole pages, sealed as sim_arena_create seals it?
 * Before anything is mapped.  0, or -errno and why.
 */
static int check_file(int fd, uint64_t base, struct stat *st, struct umad_err *err)
{
	int seals = fcntl(fd, F_GET_SEALS);

	if (fstat(fd, st) < 0)
		return umad_err_set(err, -EINVAL, "cannot look at it: %s", strerror(errno));
	if (!S_ISREG(st->st_mode))
		return umad_err_set(err, -EINVAL, "it is not a memory file");
	if (st->st_uid != geteuid())
		return umad_err_set(err, -EPERM, "it belongs to user %u, not to this one (%u)",
				    (unsigned)st->st_uid, (unsigned)geteuid());
	if (seals < 0 || (seals & ARENA_SEALS) != ARENA_SEALS || (seals & ARENA_WRITE_SEALS))
		return umad_err_set(err, -EINVAL,
				    "it is not sealed as an arena is (seals 0x%x, expected 0x%x)",
				    seals < 0 ? 0 : (unsigned)seals, ARENA_SEALS);
	if (st->st_size < (off_t)(2 * ARENA_PAGE) || (st->st_size % ARENA_PAGE) ||
	    (uint64_t)st->st_size > UINT64_MAX - base)
		return umad_err_set(err, -EINVAL, "its size (%lld bytes) is not an arena's",
				    (long long)st->st_size);
	if (!base || base % ARENA_PAGE)
		return umad_err_set(err, -EINVAL, "0x%llx is not a page's address",
				    (unsigned long long)base);
	return 0;
}

int sim_arena_attach(int fd, uint64_t base, struct sim_arena **out, struct umad_err *err)
{
	struct arena_header *h;
	struct sim_arena *a;
	struct stat st;
	unsigned i;
	int r;

	*out = NULL;
	pthread_mutex_lock(&arenas_lock);
	for (i = 0; i < ARENAS_MAX; i++)
		if (arenas[i] && arenas[i]->h->base == base && same_file(arenas[i], fd)) {
			arenas[i]->users++;
			*out = arenas[i];
		}
	pthread_mutex_unlock(&arenas_lock);
	if (*out)
		return 0;
	r = check_file(fd, base, &st, err);
	if (r < 0)
		return r;
	h = map_at(base, (size_t)st.st_size, fd);
	if (!h) {
		r = errno == EEXIST ? -EADDRINUSE : -errno;
		return umad_err_set(err, r, "cannot map it at 0x%llx: %s", (unsigned long long)base,
				    strerror(-r));
	}
	if (h->magic != ARENA_MAGIC || h->base != base || h->size != (uint64_t)st.st_size) {
		munmap(h, (size_t)st.st_size);
		return umad_err_set(err, -EINVAL,
				    "it holds no arena made for 0x%llx of its size (%lld bytes)",
				    (unsigned long long)base, (long long)st.st_size);
	}
	a = calloc(1, sizeof(*a));
	if (!a) {
		munmap(h, (size_t)st.st_size);
		return umad_err_set(err, -ENOMEM, "out of memory");
	}
	a->h = h;
	a->size = (size_t)st.st_size;
	a->users = 1;
	a->used_seen = h->used;
	a->root = h->root;
	a->root_size = h->root_size;
	/* The header as found must make sense before anything it says is used. */
	if (a->used_seen < ARENA_PAGE || a->used_seen > a->size ||
	    (a->root && (a->root_size > ROOT_COPY_MAX || a->root < base + ARENA_PAGE ||
			 !sim_arena_holds(a, (void *)(uintptr_t)a->root, a->root_size)))) {
		umad_err_set(err, -EINVAL, "its arena's header is not one (used %llu, root 0x%llx "
			     "of %llu bytes)", (unsigned long long)a->used_seen,
			     (unsigned long long)a->root, (unsigned long long)a->root_size);
		munmap(h, a->size);
		free(a);
		return -EINVAL;
	}
	if (a->root)
		memcpy(a->root_copy, (void *)(uintptr_t)a->root, a->root_size);
	a->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	r = a->fd < 0 ? -errno : remember(a);
	if (r < 0) {
		if (a->fd >= 0)
			close(a->fd);
		munmap(h, a->size);
		free(a);
		return umad_err_set(err, r, "%s", strerror(-r));
	}
	*out = a;
	return 0;
}

void sim_arena_release(struct sim_arena *a)
{
	unsigned i;
	int last;

	if (!a)
		return;
	pthread_mutex_lock(&arenas_lock);
	last = --a->users == 0;
	for (i = 0; i < ARENAS_MAX && last; i++)
		if (arenas[i] == a)
			arenas[i] = NULL;
	pthread_mutex_unlock(&arenas_lock);
	if (!last)
		return;
	munmap(a->h, a->size);
	close(a->fd);
	free(a);
}

int sim_arena_fd(const struct sim_arena *a)
{
	return a->fd;
}

uint64_t sim_arena_base(const struct sim_arena *a)
{
	return (uintptr_t)a->h;
}

int sim_arena_holds(const struct sim_arena *a, const void *p, size_t len)
{
	uintptr_t start = (uintptr_t)a->h, at = (uintptr_t)p;

	return at >= start && at - start <= a->size && len <= a->size - (at - start);
}

void *sim_arena_root(const struct sim_arena *a)
{
	return (void *)(uintptr_t)a->root;
}

int sim_arena_set_root(struct sim_arena *a, void *root, size_t size)
{
	if (!sim_arena_holds(a, root, size) || (uintptr_t)root < (uintptr_t)a->h + ARENA_PAGE ||
	    size > ROOT_COPY_MAX)
		return -EINVAL;
	a->root = a->h->root = (uintptr_t)root;
	a->root_size = a->h->root_size = size;
	memcpy(a->root_copy, root, size);
	return 0;
}

/*
 * Is the shared header still what this process knows it to be?  "" when
 * it is, else what was found (into a->damage).  Its size, base and root
 * never change; used only grows, within the arena; the root's bytes stay
 * as they were set.
 */
static const char *header_damage(struct sim_arena *a)
{
	const struct arena_header *h = a->h;
	uint64_t used = h->used;

	if (a->damage[0])
		return a->damage;
	if (h->magic != ARENA_MAGIC || h->base != (uintptr_t)h || h->size != a->size)
		snprintf(a->damage, sizeof(a->damage), "its header no longer names the arena "
			 "(magic 0x%llx, base 0x%llx, size %llu)", (unsigned long long)h->magic,
			 (unsigned long long)h->base, (unsigned long long)h->size);
	else if (used < a->used_seen || used > a->size)
		snprintf(a->damage, sizeof(a->damage), "the bytes it has handed out went from %llu "
			 "to %llu (of %zu)", (unsigned long long)a->used_seen,
			 (unsigned long long)used, a->size);
	else if (h->root != a->root || h->root_size != a->root_size ||
		 (a->root && memcmp((const void *)(uintptr_t)a->root, a->root_copy,
				    a->root_size) != 0))
		snprintf(a->damage, sizeof(a->damage), "the fabric's root object at 0x%llx was "
			 "written over", (unsigned long long)a->root);
	else
		a->used_seen = used;
	return a->damage;
}

int sim_arena_lock(struct sim_arena *a)
{
	int r = pthread_mutex_lock(&a->h->lock);

	/* Its holder died: the lock is ours, and the model as that holder left it. */
	if (r == EOWNERDEAD)
		r = pthread_mutex_consistent(&a->h->lock);
	/* Whatever else went wrong (its memory written over, most likely), it is of no use now. */
	if (r) {
		if (!a->damage[0])
			snprintf(a->damage, sizeof(a->damage), "its lock cannot be taken (%s)",
				 strerror(r));
		return -ENOTRECOVERABLE;
	}
	if (header_damage(a)[0]) {
		pthread_mutex_unlock(&a->h->lock);
		return -ENOTRECOVERABLE;
	}
	return 0;
}

const char *sim_arena_damage(const struct sim_arena *a)
{
	return a->damage;
}

void sim_arena_unlock(struct sim_arena *a)
{
	pthread_mutex_unlock(&a->h->lock);
}

void *sim_arena_alloc(struct sim_arena *a, size_t size)
{
	uint64_t align = size >= ARENA_BIG ? ARENA_PAGE : ARENA_ALIGN;
	uint64_t used = a->h->used, start = used + sizeof(struct block_head);
	struct block_head *b;

	/* Never below what was handed out already, nor past the end, whatever the header says. */
	if (a->damage[0] || used < a->used_seen || used > a->size)
		return NULL;
	start = (start + align - 1) / align * align;
	if (start > a->size || size > a->size - start)
		return NULL;
	b = (struct block_head *)((uint8_t *)a->h + start) - 1;
	b->size = size;
	a->h->used = a->used_seen = start + (size + ARENA_ALIGN - 1) / ARENA_ALIGN * ARENA_ALIGN;
	/* Fresh pages of the memory file read as zeros: nothing to clear. */
	return b + 1;
}

/* --- the model's allocator --------------------------------------------------------- */

void *sim_mem_calloc(const void *owner, size_t n, size_t size)
{
	struct sim_arena *a = owner ? arena_of(owner) : NULL;

	if (!a)
		return calloc(n, size);
	if (size && n > SIZE_MAX / size)
		return NULL;
	return sim_arena_alloc(a, n * size);
}

void *sim_mem_realloc(const void *owner, void *ptr, size_t size)
{
	struct sim_arena *a = arena_of(ptr ? ptr : owner);
	const struct block_head *b;
	void *grown;

	if (!a)
		return realloc(ptr, size);
	if (!ptr)
		return sim_arena_alloc(a, size);
	b = (const struct block_head *)ptr - 1;
	if (size <= b->size)
		return ptr;
	grown = sim_arena_alloc(a, size);
	if (grown)
		memcpy(grown, ptr, b->size);
	return grown;
}

char *sim_mem_strdup(const void *owner, const char *s)
{
	size_t len = strlen(s) + 1;
	char *copy = sim_mem_calloc(owner, 1, len);

	if (copy)
		memcpy(copy, s, len);
	return copy;
}

int sim_mem_shared(const void *p)
{
	return arena_of(p) != NULL;
}

void sim_mem_free(void *ptr)
{
	if (ptr && !arena_of(ptr))
		free(ptr);
}
