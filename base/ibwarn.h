/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The one way the library itself warns on stderr, in rdma-core's format,
 * which scripts grep for: "ibwarn: [pid] func: msg".  The API and the
 * kernel backend use it where rdma-core's libibumad prints.
 */
#ifndef UMAD_BASE_IBWARN_H
#define UMAD_BASE_IBWARN_H

#include <stdio.h>
#include <unistd.h>

#define IBWARN(fmt, ...) \
	fprintf(stderr, "ibwarn: [%d] %s: " fmt "\n", (int)getpid(), __func__, ##__VA_ARGS__)

#endif /* UMAD_BASE_IBWARN_H */
