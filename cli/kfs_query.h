/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What the kernel asks a port's own hardware, asked of the simulated
 * host's agents through the backend: an SMP on a directed route of no hops
 * (answered by the node's SMA, with or without a LID) and a PMA Get at the
 * port's LID.  The sysfs files that are not in umad_get_port() come from
 * these (node_desc, rate, counters), when they are read, as the kernel's
 * do.  Each waits for its answer (KFS_QUERY_TIMEOUT_MS at most).
 */
#ifndef CLI_KFS_QUERY_H
#define CLI_KFS_QUERY_H

#include <stdint.h>

#include "cli/kfs_state.h"
#include "base/mad_wire.h"

#define KFS_QUERY_TIMEOUT_MS	1000

int kfs_query_new(struct kfs *k);
void kfs_query_free(struct kfs *k);

/* Attribute attr (modifier mod) of the node of umad port u: its SMP data. 0 or -errno. */
int kfs_query_smp(struct kfs *k, int u, uint16_t attr, uint32_t mod,
		  uint8_t data[SMP_DATA_SIZE]);
/*
 * PMA attribute attr of port port_select, sent from umad port u to lid:
 * its data.  0, -EHOSTUNREACH for lid 0 (no SM gave the port one yet),
 * -ETIMEDOUT, -EIO (a status in the answer), or -errno.
 */
int kfs_query_pma(struct kfs *k, int u, uint16_t lid, uint16_t attr, uint8_t port_select,
		  uint8_t data[PMA_DATA_SIZE]);

#endif /* CLI_KFS_QUERY_H */
