/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Reflected CRCs: slicing-by-8 tables, and folding by carry-less
 * multiplication on x86-64.
 *
 * Folding, in short: a message is a polynomial M(x), the CRC register is
 * M(x)*x^w mod P(x).  Read 16 bytes as a 128-bit block B; in the reflected
 * bit order its low 64 bits H hold the high-degree half, so the block is
 * H*x^64 + L.  Moving a block 128 bits further (past the next block) makes
 * it H*x^192 + L*x^128, which is congruent to H*(x^192 mod P) +
 * L*(x^128 mod P): two 64x32-bit carry-less products that fit in one block
 * and are added (XOR) to the next.  PCLMULQDQ of reflected operands yields
 * the product times x, hence the constants x^191 and x^127.
 *
 * What is left, one block B = H*x^64 + L congruent to the message, becomes
 * the register B*x^w mod P without tables (whose lookups miss the cache
 * when CRCs come in bursts between other work): T = H*(x^(64+w) mod P) +
 * L*x^w has degree < 64+w, and T mod P by Barrett reduction is T + Q*P,
 * whose low w bits are those of T + Q*(P - x^w), where the quotient
 * Q = floor(floor(T / x^w) * floor(x^(64+w) / P) / x^64) is exact over
 * GF(2).  Three more products.
 *
 * One running block waits for each multiplication to finish before the
 * next; four blocks side by side, each moved 512 bits on (x^575, x^511),
 * keep the multiplier busy.  They are then folded into one, 128 bits at a
 * time.
 */
#include "config.h"

#include <string.h>

#include "crc.h"

#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_FOLDING 1
#include <cpuid.h>
#include <immintrin.h>
#endif

static int folding = -1;	/* -1: not decided yet; then whether the CPU can (or a test's choice) */

/* x^k mod P, unreflected (bit d: the coefficient of x^d). */
static uint32_t x_pow_mod(unsigned k, uint32_t poly, unsigned width)
{
	uint64_t r = 1, top = 1ull << width;

	while (k--) {
		r <<= 1;
		if (r & top)
			r ^= top | poly;
	}
	return (uint32_t)r;
}

/* floor(x^(64+width) / P) without its x^64 term: the long division, bit by bit. */
static uint64_t barrett_quotient(uint32_t poly, unsigned width)
{
	/* Past the quotient's x^64 term the remainder is poly*x^64: its top width coefficients. */
	uint64_t quotient = 0, rem = poly;
	int d;

	/* Quotient bit d is the remainder's x^(width+d) coefficient. */
	for (d = 63; d >= 0; d--) {
		rem <<= 1;		/* bit width: the coefficient of x^(width+d) */
		if (rem >> width & 1) {
			quotient |= 1ull << d;
			rem ^= (1ull << width) | poly;
		}
	}
	return quotient;
}

/* A constant of degree < width as a reflected 64-bit operand: x^d at bit 63-d. */
static uint64_t reflect64(uint64_t v, unsigned width)
{
	uint64_t out = 0;
	unsigned d;

	for (d = 0; d < width; d++)
		if (v >> d & 1)
			out |= 1ull << (63 - d);
	return out;
}

void crc_reflected_init(struct crc_reflected *c, uint32_t poly, unsigned width)
{
	uint32_t reflected = 0;
	unsigned i, bit, k;

	for (bit = 0; bit < width; bit++)
		if (poly >> bit & 1)
			reflected |= 1u << (width - 1 - bit);
	c->width = width;
	for (i = 0; i < 256; i++) {
		uint32_t r = i;

		for (bit = 0; bit < 8; bit++)
			r = r & 1 ? (r >> 1) ^ reflected : r >> 1;
		c->table[0][i] = r;
	}
	for (k = 1; k < 8; k++)
		for (i = 0; i < 256; i++)
			c->table[k][i] = (c->table[k - 1][i] >> 8) ^
					 c->table[0][c->table[k - 1][i] & 0xff];
	c->fold_far = reflect64(x_pow_mod(191, poly, width), width);
	c->fold_near = reflect64(x_pow_mod(127, poly, width), width);
	c->fold4_far = reflect64(x_pow_mod(575, poly, width), width);
	c->fold4_near = reflect64(x_pow_mod(511, poly, width), width);
	c->last_fold = reflect64(x_pow_mod(63 + width, poly, width), width);
	c->barrett_mu = reflect64(barrett_quotient(poly, width), 64);
	c->barrett_poly = reflect64(poly, width);
}

int crc_use_folding(int on)
{
#ifdef HAVE_FOLDING
	/*
	 * One CPUID leaf, asked here: __builtin_cpu_supports would link
	 * libgcc's CPU probe, a constructor that runs a dozen CPUID leaves in
	 * every process loading the library, capturing or not (each one a
	 * VM exit under a hypervisor).
	 */
	unsigned eax, ebx, ecx = 0, edx;

	if (on && !__get_cpuid(1, &eax, &ebx, &ecx, &edx))
		ecx = 0;
	on = on && (ecx & bit_PCLMUL) && (ecx & bit_SSE4_1);
#else
	on = 0;
#endif
	__atomic_store_n(&folding, on, __ATOMIC_RELAXED);
	return on;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Eight bytes a step; the register (up to 32 bits) sits in the low bytes. */
static uint32_t update_tables(const struct crc_reflected *c, uint32_t reg, const uint8_t *p,
			      size_t n)
{
	const uint32_t (*t)[256] = c->table;

	for (; n >= 8; p += 8, n -= 8) {
		uint32_t one = reg ^ le32(p), two = le32(p + 4);

		reg = t[7][one & 0xff] ^ t[6][(one >> 8) & 0xff] ^ t[5][(one >> 16) & 0xff] ^
		      t[4][one >> 24] ^ t[3][two & 0xff] ^ t[2][(two >> 8) & 0xff] ^
		      t[1][(two >> 16) & 0xff] ^ t[0][two >> 24];
	}
	while (n--)
		reg = t[0][(reg ^ *p++) & 0xff] ^ (reg >> 8);
	return reg;
}

#ifdef HAVE_FOLDING
/* acc moved on by the distance k stands for, added to the block that is there. */
__attribute__((target("pclmul,sse4.1")))
static inline __m128i fold(__m128i acc, __m128i k, __m128i next)
{
	return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(acc, k, 0x00),
					   _mm_clmulepi64_si128(acc, k, 0x11)),
			     next);
}

__attribute__((target("pclmul,sse4.1")))
static inline __m128i load16(const uint8_t *p)
{
	return _mm_loadu_si128((const __m128i *)p);
}

static inline uint64_t low64(__m128i v)
{
	return (uint64_t)_mm_cvtsi128_si64(v);
}

__attribute__((target("pclmul,sse4.1")))
static inline uint64_t high64(__m128i v)
{
	return (uint64_t)_mm_extract_epi64(v, 1);
}

/* a times b (reflected 64-bit operands), as a reflected 128-bit product times x. */
__attribute__((target("pclmul,sse4.1")))
static inline __m128i clmul64(uint64_t a, uint64_t b)
{
	return _mm_clmulepi64_si128(_mm_cvtsi64_si128((long long)a), _mm_cvtsi64_si128((long long)b),
				    0x00);
}

/*
 * The register for the last block (see the top of the file).  Bit k of a
 * reflected 128-bit value stands for x^(127-k): T's low w coefficients are
 * the top w bits, floor(T / x^w) the 64 bits below them.
 */
__attribute__((target("pclmul,sse4.1")))
static uint32_t reduce_block(const struct crc_reflected *c, __m128i block)
{
	unsigned w = c->width;
	uint64_t h = low64(block), l = high64(block);
	__m128i hk = clmul64(h, c->last_fold);
	uint64_t t_lo = low64(hk) ^ l << (64 - w), t_hi = high64(hk) ^ l >> w;
	uint64_t a = t_hi << w | t_lo >> (64 - w);
	/* The product's x^64 and higher, a reflected 64-bit value, is one bit up. */
	uint64_t q = a ^ low64(clmul64(a, c->barrett_mu)) << 1;
	uint64_t qp = high64(clmul64(q, c->barrett_poly)) >> (63 - w);

	return (uint32_t)((t_hi >> (64 - w) ^ qp) & ((1ull << w) - 1));
}

/*
 * Whole 16-byte blocks folded into one, which reduce_block finishes; n >= 32.
 * A length that is not a multiple of 16 is made one with zeros in front
 * (they leave a CRC whose register starts at 0 as it is, and the register
 * goes in where the message starts): the first block is put together here.
 */
__attribute__((target("pclmul,sse4.1")))
static uint32_t update_folding(const struct crc_reflected *c, uint32_t reg, const uint8_t *p,
			       size_t n)
{
	const __m128i k1 = _mm_set_epi64x((long long)c->fold_near, (long long)c->fold_far);
	const __m128i k4 = _mm_set_epi64x((long long)c->fold4_near, (long long)c->fold4_far);
	size_t lead = n % 16, at = 16;
	uint8_t first[32] = { 0 };
	__m128i acc;

	if (lead) {
		size_t i;

		memcpy(first + 16 - lead, p, 16 + lead);
		for (i = 0; i < 4; i++)
			first[16 - lead + i] ^= (uint8_t)(reg >> (8 * i));
		acc = fold(load16(first), k1, load16(first + 16));
		p += lead + 16;
		n -= lead + 16;
		at = 0;
	} else {
		acc = _mm_xor_si128(load16(p), _mm_cvtsi32_si128((int)reg));
	}

	if (n - at >= 112) {
		__m128i b1 = load16(p + at), b2 = load16(p + at + 16), b3 = load16(p + at + 32);

		for (at += 48; at + 64 <= n; at += 64) {
			acc = fold(acc, k4, load16(p + at));
			b1 = fold(b1, k4, load16(p + at + 16));
			b2 = fold(b2, k4, load16(p + at + 32));
			b3 = fold(b3, k4, load16(p + at + 48));
		}
		acc = fold(fold(fold(acc, k1, b1), k1, b2), k1, b3);
	}
	for (; at + 16 <= n; at += 16)
		acc = fold(acc, k1, load16(p + at));
	return reduce_block(c, acc);
}
#endif

uint32_t crc_reflected_update(const struct crc_reflected *c, uint32_t reg, const uint8_t *p,
			      size_t n)
{
#ifdef HAVE_FOLDING
	if (n >= 32) {
		int f = __atomic_load_n(&folding, __ATOMIC_RELAXED);

		if (f < 0)
			f = crc_use_folding(1);
		if (f)
			return update_folding(c, reg, p, n);
	}
#endif
	return update_tables(c, reg, p, n);
}
