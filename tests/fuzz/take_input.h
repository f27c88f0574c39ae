/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * For the fuzz targets that read their input as a sequence of fields:
 * each take reads the next bytes, and zeros once the input has ended, so
 * that any input is a whole one.
 */
#ifndef TESTS_FUZZ_TAKE_INPUT_H
#define TESTS_FUZZ_TAKE_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The input, read front to back. */
struct input {
	const uint8_t *p;
	size_t left;
};

static inline uint8_t take8(struct input *in)
{
	if (!in->left)
		return 0;
	in->left--;
	return *in->p++;
}

/* Up to n bytes into out; the rest of out[0..n) zero. */
static inline void take_bytes(struct input *in, void *out, size_t n)
{
	size_t k = n < in->left ? n : in->left;

	memcpy(out, in->p, k);
	memset((uint8_t *)out + k, 0, n - k);
	in->p += k;
	in->left -= k;
}

/* Big-endian numbers, their bytes taken in order. */
static inline uint16_t take_be16(struct input *in)
{
	uint16_t hi = take8(in);

	return (uint16_t)(hi << 8 | take8(in));
}

static inline uint32_t take_be32(struct input *in)
{
	uint32_t hi = take_be16(in);

	return hi << 16 | take_be16(in);
}

#endif /* TESTS_FUZZ_TAKE_INPUT_H */
