/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * For the fuzz targets: read every byte a call hands back, so that ASan
 * sees any that lie outside what was allocated.
 */
#ifndef TESTS_FUZZ_READ_ALL_H
#define TESTS_FUZZ_READ_ALL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline unsigned sum_bytes(const void *p, size_t n)
{
	const uint8_t *b = p;
	unsigned s = 0;

	while (n--)
		s += *b++;
	return s;
}

static inline unsigned sum_string(const char *s)
{
	return s ? sum_bytes(s, strlen(s)) : 0;
}

#endif /* TESTS_FUZZ_READ_ALL_H */
