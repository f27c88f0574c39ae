/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * For the fuzz targets that start a backend themselves: the library's side
 * of the contract (base/backend.h), as the dispatcher gives it, with no
 * debugging and no capture to tell of resends.
 */
#ifndef TESTS_FUZZ_BACKEND_HOST_H
#define TESTS_FUZZ_BACKEND_HOST_H

#include "base/backend.h"

static inline int fuzz_no_debug(void)
{
	return 0;
}

static const struct umad_backend_host fuzz_host = { .debug_level = fuzz_no_debug, .resent = NULL };

#endif /* TESTS_FUZZ_BACKEND_HOST_H */
