/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The dynamic loader's cache (/etc/ld.so.cache, written by ldconfig) as
 * glibc reads it: the "glibc-ld.so.cache1.1" table, alone or after the old
 * "ld.so-1.7.0" one, in this machine's byte order.  Each entry names a
 * library (its SONAME) and the file ldconfig found for it.  Every offset is
 * checked against the file: a cache that does not read names nothing.
 */
#ifndef CLI_LD_CACHE_H
#define CLI_LD_CACHE_H

#include <stddef.h>

/*
 * Call each(arg, path) for the cache's entries named name, in the cache's
 * order (the loader takes the first that suits the program) until each
 * returns non-zero.  0 when the cache reads, -EINVAL when it does not.
 */
int ld_cache_each(const void *cache, size_t size, const char *name,
		  int (*each)(void *arg, const char *path), void *arg);

#endif /* CLI_LD_CACHE_H */
