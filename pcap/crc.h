/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Reflected CRCs of up to 32 bits (the InfiniBand ICRC and VCRC): eight
 * bytes a step from tables, or sixty-four a step by carry-less
 * multiplication (PCLMULQDQ) where the CPU has it, which the capture path
 * needs: it runs both CRCs over every MAD it writes.
 */
#ifndef LIBUMAD_CRC_H
#define LIBUMAD_CRC_H

#include <stddef.h>
#include <stdint.h>

struct crc_reflected {
	unsigned width;			/* 8 .. 32 bits */
	uint32_t table[8][256];		/* [0]: one byte; [k]: that byte then k zero bytes */
	uint64_t fold_far, fold_near;	/* x^191 and x^127 mod P, as multiplier operands */
	uint64_t fold4_far, fold4_near;	/* x^575 and x^511: four blocks at a time */
	/* The last block to a register, as multiplier operands (see crc.c): */
	uint64_t last_fold;		/* x^(63+width) mod P */
	uint64_t barrett_mu;		/* x^(64+width) / P, without its x^64 term */
	uint64_t barrett_poly;		/* P without its x^width term */
};

/* poly: the generator without its x^width term, in the usual (unreflected) form. */
void crc_reflected_init(struct crc_reflected *c, uint32_t poly, unsigned width);

/* The register after n more bytes (no final inversion). */
uint32_t crc_reflected_update(const struct crc_reflected *c, uint32_t reg, const uint8_t *p,
			      size_t n);

/*
 * Whether crc_reflected_update may use carry-less multiplication (the
 * default where the CPU has it); returns 1 when it now does.  For tests.
 */
int crc_use_folding(int on);

#endif /* LIBUMAD_CRC_H */
