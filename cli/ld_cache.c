/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
#include "config.h"

#include <errno.h>
#include <stdalign.h>
#include <stdint.h>
#include <string.h>

#include "cli/ld_cache.h"

/* glibc's layouts (elf/cache.c, sysdeps/generic/dl-cache.h). */
#define CACHE_OLD_MAGIC	"ld.so-1.7.0"
#define CACHE_NEW_MAGIC	"glibc-ld.so.cache"
#define CACHE_NEW_VERSION	"1.1"

struct cache_old_entry {
	int32_t flags;
	uint32_t key, value;
};

struct cache_old_head {
	char magic[sizeof(CACHE_OLD_MAGIC) - 1];
	uint32_t nlibs;
};

struct cache_new_entry {
	int32_t flags;
	uint32_t key, value;	/* string offsets from the start of the new table */
	uint32_t osversion;
	uint64_t hwcap;
};

struct cache_new_head {
	char magic[sizeof(CACHE_NEW_MAGIC) - 1];
	char version[sizeof(CACHE_NEW_VERSION) - 1];
	uint32_t nlibs;
	uint32_t len_strings;
	uint8_t flags;
	uint8_t padding[3];
	uint32_t extension_offset;
	uint32_t unused[3];
};

/* The string at off of a table of size bytes, NULL when it does not end inside. */
static const char *string_at(const char *table, size_t size, uint32_t off)
{
	if (off >= size || !memchr(table + off, '\0', size - off))
		return NULL;
	return table + off;
}

int ld_cache_each(const void *cache, size_t size, const char *name,
		  int (*each)(void *arg, const char *path), void *arg)
{
	const char *base = cache;
	struct cache_new_head head;
	size_t at = 0, left, i;

	/* The old table first: the new one follows it, aligned as its entries. */
	if (size >= sizeof(struct cache_old_head) &&
	    !memcmp(base, CACHE_OLD_MAGIC, sizeof(CACHE_OLD_MAGIC) - 1)) {
		struct cache_old_head old;

		memcpy(&old, base, sizeof(old));
		if (old.nlibs > (size - sizeof(old)) / sizeof(struct cache_old_entry))
			return -EINVAL;
		at = sizeof(old) + old.nlibs * sizeof(struct cache_old_entry);
		at = (at + alignof(struct cache_new_entry) - 1) / alignof(struct cache_new_entry) *
		     alignof(struct cache_new_entry);
		if (at > size)
			return -EINVAL;
	}
	left = size - at;
	if (left < sizeof(head))
		return -EINVAL;
	memcpy(&head, base + at, sizeof(head));
	if (memcmp(head.magic, CACHE_NEW_MAGIC, sizeof(head.magic)) ||
	    memcmp(head.version, CACHE_NEW_VERSION, sizeof(head.version)))
		return -EINVAL;
	if (head.nlibs > (left - sizeof(head)) / sizeof(struct cache_new_entry))
		return -EINVAL;
	for (i = 0; i < head.nlibs; i++) {
		struct cache_new_entry e;
		const char *key, *value;

		memcpy(&e, base + at + sizeof(head) + i * sizeof(e), sizeof(e));
		key = string_at(base + at, left, e.key);
		value = string_at(base + at, left, e.value);
		if (!key || !value)
			return -EINVAL;
		if (!strcmp(key, name) && each(arg, value))
			break;
	}
	return 0;
}
